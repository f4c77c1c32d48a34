// tailor-cluster at scale (issue 3): N pods loaded straight into the store, then over HTTPS
// through the real server: one full list, the same list paginated, and W concurrent watchers
// receiving U pod updates. Prints RSS per pod next to the mean pod JSON size.
// Usage: bench_cluster_scale [pods=100000] [watchers=100] [updates=10000] [list_runs=3]
//        [paged_runs=2] [https|http] [client=inproc|curl|kubectl]
// (fewer runs to profile one phase; http: the plain server; curl, kubectl: the full list is
// fetched by a separate process, as a real client would, and the server's CPU seconds are this
// process's alone)
#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <boost/json.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "bench/pod_list_generator.h"
#include "embedded/api/resources.h"
#include "embedded/server/cluster.h"
#include "kube/http/client.h"

namespace bj = boost::json;
using namespace tailor::kube;
using namespace tailor::embedded;
using Clock = std::chrono::steady_clock;

namespace {

long rss_kib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::atol(line.c_str() + 6);
  }
  return 0;
}

double seconds_of(const timeval& t) { return t.tv_sec + t.tv_usec / 1e6; }

// CPU time (user and system) that rusage records: this process's, or a waited-for child's.
double cpu_seconds_of(const rusage& u) { return seconds_of(u.ru_utime) + seconds_of(u.ru_stime); }

// CPU time of the whole process (server and client threads): unlike wall time, it does not grow
// when the shared machine is busy.
double cpu_seconds() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  return cpu_seconds_of(u);
}

// CPU time of the calling thread alone: the client's share when this thread sends the request.
double thread_cpu_seconds() {
  timespec t{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}

long minor_faults() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  return u.ru_minflt;
}

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Distinct realistic pods from a 1,000-pod template list, renamed so that every name is unique;
// the store assigns uid, resourceVersion and creationTimestamp.
std::vector<bj::object> pod_templates() {
  bj::value list = bj::parse(tailor::bench::generate_pod_list({.pods = 1000}));
  std::vector<bj::object> pods;
  for (bj::value& item : list.at("items").as_array()) {
    bj::object pod = std::move(item.as_object());
    bj::object& meta = pod["metadata"].as_object();
    meta.erase("uid");
    meta.erase("resourceVersion");
    meta.erase("creationTimestamp");
    pods.push_back(std::move(pod));
  }
  return pods;
}

void ensure_namespaces(ObjectStore& store, const std::vector<bj::object>& pods) {
  const ResourceInfo& namespaces = *find_resource("", "v1", "namespaces");
  for (const bj::object& pod : pods) {
    std::string ns(pod.at("metadata").at("namespace").as_string());
    try {
      store.get(namespaces, "", ns);
      continue;
    } catch (const std::exception&) {  // not found: create it
    }
    store.create(namespaces, bj::object{{"apiVersion", "v1"},
                                        {"kind", "Namespace"},
                                        {"metadata", bj::object{{"name", ns}}}});
  }
}

http::ClientRequest get(const Cluster& cluster, std::string target) {
  http::ClientRequest r;
  r.target = std::move(target);
  r.headers = {{"Authorization", "Bearer " + cluster.token()}, {"Accept", "application/json"}};
  r.timeout = std::chrono::minutes(10);
  return r;
}

http::ClientOptions client_options(const Cluster& cluster) {
  return {.base_url = cluster.url(),
          .tls = {.ca_pem = cluster.ca_pem()},
          .max_response_body = 8ull << 30};  // the 100k-pod list is over 1 GiB
}

// Every generated pod has exactly one ownerReference (its ReplicaSet). Counting it instead of
// parsing keeps the client from building a second multi-GiB DOM next to the server's.
std::size_t count_owned_pods(const std::string& body) {
  std::size_t count = 0;
  for (auto at = body.find(R"("kind":"ReplicaSet")"); at != std::string::npos;
       at = body.find(R"("kind":"ReplicaSet")", at + 1)) {
    ++count;
  }
  return count;
}

// The server's list path (embedded/api/rest_read.cpp) in process, before HTTP and TLS: the
// store's page of shared revisions, then the body as pieces pointing into their texts (nothing
// is joined or copied; the server writes the pieces).
void list_breakdown(ObjectStore& store) {
  const ResourceInfo& pods = *find_resource("", "v1", "pods");
  auto start = Clock::now();
  ListPage page = store.list(pods, "", [](const StoredObject&) { return true; });
  double listed = seconds_since(start);
  start = Clock::now();
  std::vector<std::string_view> pieces;
  pieces.reserve(2 * page.items.size() + 2);
  std::size_t size = 0;
  for (const StoredPtr& o : page.items) {
    pieces.emplace_back(",");
    pieces.emplace_back(o->json());
    size += o->json().size() + 1;
  }
  double pieced = seconds_since(start);
  std::printf(
      "in-process list stages: store.list %.3f s, the body as %zu pieces %.3f s (%.1f MiB, "
      "not copied)\n",
      listed, pieces.size(), pieced, size / 1048576.0);
}

void full_list(const Cluster& cluster, int pods, int runs) {
  http::Client client(client_options(cluster));
  for (int run = 0; run < runs; ++run) {
    auto start = Clock::now();
    double cpu = cpu_seconds();
    double client_cpu = thread_cpu_seconds();
    long faults = minor_faults();
    http::ClientResponse r = client.send(get(cluster, "/api/v1/pods"));
    double transfer = seconds_since(start);
    cpu = cpu_seconds() - cpu;
    client_cpu = thread_cpu_seconds() - client_cpu;
    faults = minor_faults() - faults;
    std::size_t items = count_owned_pods(r.body);
    std::printf(
        "full list run %d: HTTP %d, %zu items, %.1f MiB, %.3f s, %.3f CPU s server+client "
        "(client thread %.3f), %ld page faults (no client parse)\n",
        run, r.status, items, r.body.size() / 1048576.0, transfer, cpu, client_cpu, faults);
    if (static_cast<int>(items) != pods) std::printf("  MISMATCH: expected %d\n", pods);
    std::printf("  RSS with the response held: %ld MiB\n", rss_kib() / 1024);
  }
}

// Runs a client process to completion (stdout to /dev/null unless it writes elsewhere itself);
// prints its wall time and CPU seconds next to this process's (the server's) CPU seconds.
void time_client_process(const char* name, std::vector<std::string> args, int run) {
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  ::posix_spawn_file_actions_init(&actions);
  ::posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  std::fflush(stdout);
  auto start = Clock::now();
  double server_cpu = cpu_seconds();
  pid_t pid = 0;
  if (::posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ) != 0) {
    std::printf("cannot run %s\n", name);
    return;
  }
  ::posix_spawn_file_actions_destroy(&actions);
  int status = 0;
  rusage child{};
  ::wait4(pid, &status, 0, &child);
  double wall = seconds_since(start);
  server_cpu = cpu_seconds() - server_cpu;
  std::printf(
      "%s run %d: exit %d, %.3f s wall (incl. process start), server %.3f CPU s, %s %.3f CPU s\n",
      name, run, WEXITSTATUS(status), wall, server_cpu, name, cpu_seconds_of(child));
}

// The full list fetched by a separate process, as a real client would: curl (OpenSSL; prints
// its own time_total and the size on stderr) or kubectl (Go's TLS; `get --raw`). This process's
// CPU seconds are then the server's alone.
void external_list(const Cluster& cluster, const std::string& client, int runs) {
  std::string dir = "/tmp/bench_cluster_scale_" + std::to_string(::getpid());
  std::string ca_file = dir + "-ca.pem", kubeconfig = dir + "-kubeconfig";
  std::ofstream(ca_file) << cluster.ca_pem();
  cluster.write_kubeconfig(kubeconfig);
  std::vector<std::string> args = {"kubectl", "--kubeconfig", kubeconfig,
                                   "get",     "--raw",        "/api/v1/pods"};
  if (client == "curl") {
    args = {"curl",
            "-sS",
            "--cacert",
            ca_file,
            "-H",
            "Authorization: Bearer " + cluster.token(),
            "-H",
            "Accept: application/json",
            "-o",
            "/dev/null",
            "-w",
            "%{stderr}curl: HTTP %{http_code}, time_total %{time_total} s, %{size_download} B\\n",
            cluster.url() + "/api/v1/pods"};
  }
  for (int run = 0; run < runs; ++run) time_client_process(client.c_str(), args, run);
  std::remove(ca_file.c_str());
  std::remove(kubeconfig.c_str());
}

void paginated_list(const Cluster& cluster, int pods, int runs) {
  http::Client client(client_options(cluster));
  for (int run = 0; run < runs; ++run) {
    auto start = Clock::now();
    double cpu = cpu_seconds();
    std::size_t items = 0, pages = 0, bytes = 0;
    std::string token;
    do {
      std::string target = "/api/v1/pods?limit=500";
      if (!token.empty()) target += "&continue=" + token;
      http::ClientResponse r = client.send(get(cluster, target));
      bytes += r.body.size();
      bj::value page = bj::parse(r.body);
      items += page.at("items").as_array().size();
      ++pages;
      const bj::object& meta = page.at("metadata").as_object();
      auto it = meta.find("continue");
      token = it == meta.end() ? "" : std::string(it->value().as_string());
    } while (!token.empty());
    std::printf(
        "paginated list (limit=500) run %d: %zu pages, %zu items, %.1f MiB, %.3f s, %.3f CPU s "
        "server+client (including client parse of each page)\n",
        run, pages, items, bytes / 1048576.0, seconds_since(start), cpu_seconds() - cpu);
    if (static_cast<int>(items) != pods) std::printf("  MISMATCH: expected %d\n", pods);
  }
}

// Each watcher counts event lines; the clock stops when every watcher has seen every update.
void watchers(Cluster& cluster, const std::vector<std::string>& keys, int count, int updates) {
  const ResourceInfo& pods = *find_resource("", "v1", "pods");
  std::string rv = std::to_string(cluster.store().resource_version());
  std::atomic<bool> stop{false};
  std::vector<std::atomic<long>> seen(count);
  std::atomic<int> done{0};
  std::vector<std::thread> threads;
  for (int w = 0; w < count; ++w) {
    threads.emplace_back([&, w] {
      http::Client client(client_options(cluster));
      http::ClientRequest r =
          get(cluster, "/api/v1/pods?watch=true&timeoutSeconds=3600&resourceVersion=" + rv);
      bool finished = false;
      client.stream(
          r,
          [&](std::string_view piece) {
            // memchr, not a loop over every byte: the watchers receive ~12 GB between them.
            for (auto at = piece.find('\n'); at != std::string_view::npos;
                 at = piece.find('\n', at + 1)) {
              if (++seen[w] == updates && !finished) {
                finished = true;
                ++done;
              }
            }
            return !stop;
          },
          [&] { return stop.load(); });
    });
  }
  while (cluster.store().watch_count() < static_cast<std::size_t>(count)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  auto start = Clock::now();
  double cpu = cpu_seconds();
  for (int u = 0; u < updates; ++u) {
    const std::string& key = keys[u % keys.size()];
    auto slash = key.find('/');
    cluster.store().modify(
        pods, key.substr(0, slash), key.substr(slash + 1), [u](const bj::object& current) {
          bj::object next = current;
          next["metadata"].as_object()["labels"].as_object()["bench-update"] = std::to_string(u);
          return next;
        });
  }
  double written = seconds_since(start);
  while (done < count) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  double all_seen = seconds_since(start);
  cpu = cpu_seconds() - cpu;
  std::printf(
      "%d watchers x %d updates: writes %.3f s, all watchers saw all %.3f s "
      "(%.0f events/s delivered), %.1f CPU s server+client\n",
      count, updates, written, all_seen, count * static_cast<double>(updates) / all_seen, cpu);
  stop = true;
  cluster.store().stop_watches();
  for (std::thread& t : threads) t.join();
}

}  // namespace

int main(int argc, char** argv) {
  const int pod_count = argc > 1 ? std::atoi(argv[1]) : 100000;
  const int watcher_count = argc > 2 ? std::atoi(argv[2]) : 100;
  const int update_count = argc > 3 ? std::atoi(argv[3]) : 10000;
  const int list_runs = argc > 4 ? std::atoi(argv[4]) : 3;
  const int paged_runs = argc > 5 ? std::atoi(argv[5]) : 2;
  const bool tls = argc <= 6 || std::string(argv[6]) != "http";
  const std::string client = argc > 7 ? argv[7] : "inproc";
  std::setvbuf(stdout, nullptr, _IOLBF, 0);

  Cluster cluster(ClusterOptions{.tls = tls, .control_loops = false});
  cluster.start();
  std::printf("server %s\n", cluster.url().c_str());
  const std::vector<bj::object> templates = pod_templates();
  ensure_namespaces(cluster.store(), templates);
  const ResourceInfo& pods = *find_resource("", "v1", "pods");

  std::vector<std::string> keys;  // bench bookkeeping, ~50 B per pod, counted in the RSS delta
  keys.reserve(pod_count);
  long before = rss_kib();
  auto start = Clock::now();
  std::size_t json_bytes = 0;
  for (int i = 0; i < pod_count; ++i) {
    bj::object pod = templates[i % templates.size()];
    bj::object& meta = pod["metadata"].as_object();
    std::string name = std::string(meta["name"].as_string()) + "-" + std::to_string(i);
    meta["name"] = name;
    keys.push_back(std::string(meta["namespace"].as_string()) + "/" + name);
    ObjectPtr stored = cluster.store().create(pods, std::move(pod));
    json_bytes += bj::serialize(*stored).size();
  }
  double load = seconds_since(start);
  long after = rss_kib();
  double per_pod = (after - before) * 1024.0 / pod_count;
  double mean_json = static_cast<double>(json_bytes) / pod_count;
  std::printf(
      "loaded %d pods in %.2f s; RSS %ld -> %ld MiB; %.0f B RSS per pod, mean pod JSON "
      "%.0f B, overhead beyond JSON %.0f B per pod\n",
      pod_count, load, before / 1024, after / 1024, per_pod, mean_json, per_pod - mean_json);

  list_breakdown(cluster.store());
  if (client == "curl" || client == "kubectl") {
    external_list(cluster, client, list_runs);
  } else {
    full_list(cluster, pod_count, list_runs);
  }
  paginated_list(cluster, pod_count, paged_runs);
  watchers(cluster, keys, watcher_count, update_count);
  cluster.stop();
}
