// `tailor demo` run to the end on a real local cluster (tailor cluster up: two nodes on a real
// containerd, tailor-controller), the CI proof of the demo: its exit code and the figures of its
// --json summary, which the demo reads back from the API. Needs root; fails loudly without it.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace {
namespace fs = std::filesystem;
namespace bj = boost::json;

fs::path tailor_binary() {
  if (const char* dir = std::getenv("TAILOR_BIN_DIR")) return fs::path(dir) / "tailor";
  return fs::read_symlink("/proc/self/exe").parent_path().parent_path() / "bin" / "tailor";
}

std::string read(const fs::path& file) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::int64_t number(const bj::object& o, std::string_view key) {
  const bj::value* v = o.if_contains(key);
  return v && v->is_int64() ? v->as_int64() : -1;
}

TEST(TailorDemo, RunsEveryCaseToTheEndAndReportsItInJson) {
  ASSERT_EQ(::geteuid(), 0u) << "tailor demo starts `tailor cluster up`, which needs root";
  const fs::path binary = tailor_binary();
  ASSERT_TRUE(fs::exists(binary)) << binary << " missing: build the tailor target";
  char pattern[] = "/tmp/tailor-demo-test-XXXXXX";
  ASSERT_NE(::mkdtemp(pattern), nullptr);
  const fs::path work = pattern;
  const fs::path json = work / "summary.json", log = work / "demo.log";
  const std::string command = binary.string() + " demo --dir " + (work / "cluster").string() +
                              " --json " + json.string() + " --timeout 240 > " + log.string() +
                              " 2>&1";
  const int status = std::system(command.c_str());
  const std::string output = read(log);
  ASSERT_TRUE(WIFEXITED(status)) << output;
  EXPECT_EQ(WEXITSTATUS(status), 0) << output;
  ASSERT_TRUE(fs::exists(json)) << output;

  const bj::object summary = bj::parse(read(json)).as_object();
  EXPECT_GE(number(summary, "in_place_resizes"), 1) << output;
  EXPECT_EQ(number(summary, "restarts_caused"), 0) << output;
  const bj::object& recreations = summary.at("recreations").as_object();
  EXPECT_GE(number(recreations, "Infeasible"), 1) << output;
  EXPECT_GE(number(summary, "deferred_completed"), 1) << output;
  EXPECT_TRUE(summary.at("success").as_bool()) << output;

  // The Infeasible pod left the small node; its replacement (a new UID) runs on the big one.
  const std::string small = std::string(summary.at("nodes").at("small").at("name").as_string());
  const std::string big = std::string(summary.at("nodes").at("big").at("name").as_string());
  bool evicted_from_small = false, replaced_on_big = false;
  for (const auto& p : summary.at("pods").as_array()) {
    const bj::object& pod = p.as_object();
    if (pod.at("evicted").as_bool() && pod.at("first_node").as_string() == small) {
      evicted_from_small = true;
    }
    if (pod.at("replacement").as_bool() && pod.at("last_node").as_string() == big) {
      replaced_on_big = true;
    }
    if (number(pod, "in_place_resizes") > 0) {
      EXPECT_EQ(number(pod, "restarts"), 0) << pod.at("name").as_string();
    }
  }
  EXPECT_TRUE(evicted_from_small) << output;
  EXPECT_TRUE(replaced_on_big) << output;
  // The cluster was stopped: no process of it is left behind.
  EXPECT_FALSE(fs::exists(work / "cluster" / "cluster.pid")) << output;
  if (!HasFailure()) fs::remove_all(work);
}

}  // namespace
