// Write throughput of tailor-cluster's store: creates then updates of realistic pods
// (bench/pod_list_generator: managedFields, env, probes, status; ~12 KB each) in memory only, and
// over SQLite persistence with synchronous=NORMAL and =FULL, each write committed before it
// returns. Also the time to load the database back (a restart). Usage: bench_store_write
// [objects=2000] [dir=/tmp]
#include <unistd.h>

#include <boost/json.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "bench/pod_list_generator.h"
#include "embedded/api/resources.h"
#include "embedded/storage/object_store.h"
#include "embedded/storage/sqlite_persistence.h"

namespace {

using namespace tailor::embedded;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

const ResourceInfo& pods() { return *find_resource("", "v1", "pods"); }

struct Figures {
  double creates_per_s = 0, updates_per_s = 0, load_s = 0;
};

Figures run(int objects, const std::string& db, const char* mode) {
  auto options = [&] {
    StoreOptions o;
    if (std::string(mode) == "memory") return o;
    o.persistence = open_sqlite_persistence(
        db, std::string(mode) == "full" ? SyncMode::Full : SyncMode::Normal);
    o.resolve = stored_builtin;
    return o;
  };
  Figures f;
  {
    ObjectStore store(options());
    store.create(*find_resource("", "v1", "namespaces"),
                 boost::json::object{{"metadata", boost::json::object{{"name", "bench"}}}});
    boost::json::array items =
        boost::json::parse(tailor::bench::generate_pod_list({.pods = objects}))
            .at("items")
            .as_array();
    auto start = Clock::now();
    for (boost::json::value& item : items) {
      boost::json::object pod = item.as_object();
      pod["metadata"].as_object()["namespace"] = "bench";
      pod["metadata"].as_object().erase("resourceVersion");
      store.create(pods(), std::move(pod));
    }
    f.creates_per_s = objects / seconds_since(start);
    start = Clock::now();
    int i = 0;
    for (const boost::json::value& item : items) {
      std::string name(item.at("metadata").at("name").as_string());
      store.modify(pods(), "bench", name, [&](const boost::json::object& o) {
        boost::json::object next = o;
        next["metadata"].as_object()["labels"].as_object()["round"] = std::to_string(++i);
        return next;
      });
    }
    f.updates_per_s = objects / seconds_since(start);
  }
  if (std::string(mode) != "memory") {
    auto start = Clock::now();
    ObjectStore reloaded(options());
    f.load_s = seconds_since(start);
    if (reloaded.list(pods(), "bench", nullptr).items.size() != static_cast<std::size_t>(objects)) {
      std::fprintf(stderr, "reload lost objects\n");
      std::exit(1);
    }
  }
  fs::remove(db);
  fs::remove(db + "-wal");
  return f;
}

}  // namespace

int main(int argc, char** argv) {
  const int objects = argc > 1 ? std::atoi(argv[1]) : 2000;
  const std::string dir = argc > 2 ? argv[2] : "/tmp";
  if (objects <= 0 || argc > 3) {
    std::fprintf(stderr, "usage: bench_store_write [PODS>0] [DIR]\n");
    return 2;
  }
  const std::string db = dir + "/bench-store-" + std::to_string(::getpid()) + ".db";
  std::printf("%d pods: creates/s  updates/s  load s\n", objects);
  for (const char* mode : {"memory", "normal", "full"}) {
    Figures f = run(objects, db, mode);
    std::printf("%-7s %10.0f %10.0f %7.3f\n", mode, f.creates_per_s, f.updates_per_s, f.load_s);
  }
  return 0;
}
