// `tailor supervise`, the real binary: a supervised process killed with kill -9 or exiting by
// itself is started again after the backoff, its pid file follows it, and stopping the
// supervisor stops the process for good.
#include "cli/supervise.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "cli/cluster_process.h"
#include "tests/support/child_process.h"

namespace tailor::cli {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

TEST(RestartDelayTest, DoublesFromOneSecondToThirtyAndResetsAfterALongRun) {
  EXPECT_EQ(restart_delay(0s, 1s), 1s);  // the first restart
  EXPECT_EQ(restart_delay(1s, 1s), 2s);
  EXPECT_EQ(restart_delay(2s, 5s), 4s);
  EXPECT_EQ(restart_delay(16s, 1s), 30s);
  EXPECT_EQ(restart_delay(30s, 59s), 30s);
  EXPECT_EQ(restart_delay(30s, 60s), 1s);  // it ran a minute: crashing is news again
}

class SuperviseTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/tailor-supervise-test-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    stop_supervised(pid_file());
    fs::remove_all(dir_);
  }

  fs::path pid_file() const { return dir_ / "worker.pid"; }
  std::string log() const {
    std::ifstream in(dir_ / "worker.log");
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

  void supervise(const std::vector<std::string>& command) {
    std::vector<std::string> argv = {kube::testing::build_program("tailor").string(), "supervise",
                                     "--pid-file", pid_file().string(), "--"};
    argv.insert(argv.end(), command.begin(), command.end());
    start_background(argv, dir_ / "worker.log", supervisor_pid_file(pid_file()));
  }

  // The supervised process's pid once one other than `not` runs.
  pid_t wait_for_process(pid_t not_this = 0) {
    for (auto deadline = std::chrono::steady_clock::now() + 10s;
         std::chrono::steady_clock::now() < deadline; std::this_thread::sleep_for(20ms)) {
      auto pid = running_pid(pid_file());
      if (pid && *pid != not_this) return *pid;
    }
    ADD_FAILURE() << "no process other than " << not_this << " started; log:\n" << log();
    return 0;
  }

  fs::path dir_;
};

TEST_F(SuperviseTest, KilledProcessIsStartedAgainAndStopsWithItsSupervisor) {
  supervise({"/bin/sleep", "600"});
  const pid_t first = wait_for_process();
  ASSERT_GT(first, 0);
  ASSERT_EQ(::kill(first, SIGKILL), 0);
  const pid_t second = wait_for_process(first);
  ASSERT_GT(second, 0);
  EXPECT_NE(log().find("tailor supervise: sleep (pid " + std::to_string(first) +
                       ") was killed by signal 9; starting it again in 1 s\n"),
            std::string::npos)
      << log();
  const auto supervisor = running_pid(supervisor_pid_file(pid_file()));
  ASSERT_TRUE(supervisor);
  EXPECT_TRUE(stop_supervised(pid_file()));
  EXPECT_NE(::kill(second, 0), 0) << "the process outlived its supervisor";
  EXPECT_NE(::kill(*supervisor, 0), 0);
  EXPECT_FALSE(running_pid(pid_file()));
}

TEST_F(SuperviseTest, ProcessThatKeepsFailingIsStartedAgainWithGrowingDelays) {
  supervise({"/bin/sh", "-c", "exit 3"});
  const std::string first = "sh (pid ";
  for (auto deadline = std::chrono::steady_clock::now() + 10s;
       log().find("starting it again in 2 s") == std::string::npos;
       std::this_thread::sleep_for(50ms)) {
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << log();
  }
  const std::string text = log();
  const auto one = text.find(") exited with status 3; starting it again in 1 s\n");
  const auto two = text.find(") exited with status 3; starting it again in 2 s\n");
  ASSERT_NE(one, std::string::npos) << text;
  EXPECT_LT(one, two) << text;
}

TEST(SuperviseUsageTest, CommandIsRequired) {
  std::ostringstream err;
  EXPECT_EQ(run_supervise({"--pid-file", "/tmp/x.pid"}, err), 2);
  EXPECT_EQ(err.str(), "Usage: tailor supervise --pid-file FILE -- COMMAND [ARGS...]\n");
}

}  // namespace
}  // namespace tailor::cli
