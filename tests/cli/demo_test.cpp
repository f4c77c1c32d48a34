// `tailor demo` run to the end on a real local cluster (tailor cluster up: two nodes on a real
// containerd, tailor-controller), the CI proof of the demo: its exit code and the figures of its
// --json summary, which the demo reads back from the API; once more with tailor-cluster killed
// (kill -9) mid-run. Needs root; fails loudly without it.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>

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

// A work directory for one demo run and the shell command that runs it (output to demo.log).
struct DemoRun {
  fs::path work;
  fs::path json() const { return work / "summary.json"; }
  fs::path log() const { return work / "demo.log"; }
  std::string command() const {
    return tailor_binary().string() + " demo --dir " + (work / "cluster").string() + " --json " +
           json().string() + " --timeout 240 > " + log().string() + " 2>&1";
  }
};

DemoRun new_run() {
  char pattern[] = "/tmp/tailor-demo-test-XXXXXX";
  if (!::mkdtemp(pattern)) throw std::runtime_error("mkdtemp failed");
  return {pattern};
}

void check_requirements() {
  ASSERT_EQ(::geteuid(), 0u) << "tailor demo starts `tailor cluster up`, which needs root";
  ASSERT_TRUE(fs::exists(tailor_binary()))
      << tailor_binary() << " missing: build the tailor target";
}

// The demo's exit status (from waitpid or system) and its --json summary: every case happened,
// no container restarted, the Infeasible pod was replaced on the big node, nothing left running.
void check_completed(const DemoRun& run, int status) {
  const std::string output = read(run.log());
  ASSERT_TRUE(WIFEXITED(status)) << output;
  EXPECT_EQ(WEXITSTATUS(status), 0) << output;
  ASSERT_TRUE(fs::exists(run.json())) << output;

  const bj::object summary = bj::parse(read(run.json())).as_object();
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
  EXPECT_FALSE(fs::exists(run.work / "cluster" / "cluster.pid")) << output;
  EXPECT_FALSE(fs::exists(run.work / "cluster" / "cluster.supervisor.pid")) << output;
}

TEST(TailorDemo, RunsEveryCaseToTheEndAndReportsItInJson) {
  check_requirements();
  if (HasFatalFailure()) return;
  const DemoRun run = new_run();
  check_completed(run, std::system(run.command().c_str()));
  if (!HasFailure()) fs::remove_all(run.work);
}

// kill -9 of tailor-cluster once the first in-place resize is seen: its supervisor starts it
// again on the same objects, every informer re-lists, no pod is lost or restarted, and the demo
// still completes every case.
TEST(TailorDemo, CompletesThroughAKill9OfTailorClusterMidRun) {
  check_requirements();
  if (HasFatalFailure()) return;
  const DemoRun run = new_run();
  const pid_t demo = ::fork();
  ASSERT_GE(demo, 0);
  if (demo == 0) {
    ::execl("/bin/sh", "sh", "-c", run.command().c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(200);
  while (read(run.log()).find("resized in place") == std::string::npos &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  long cluster = 0;
  std::ifstream(run.work / "cluster" / "cluster.pid") >> cluster;
  const bool killed = cluster > 1 && ::kill(static_cast<pid_t>(cluster), SIGKILL) == 0;
  int status = 0;
  ::waitpid(demo, &status, 0);
  ASSERT_TRUE(killed) << "tailor-cluster was not running at the first resize:\n" << read(run.log());
  EXPECT_NE(read(run.work / "cluster" / "cluster.log")
                .find("tailor supervise: tailor-cluster (pid " + std::to_string(cluster) +
                      ") was killed by signal 9; starting it again in 1 s"),
            std::string::npos);
  check_completed(run, status);
  if (!HasFailure()) fs::remove_all(run.work);
}

}  // namespace
