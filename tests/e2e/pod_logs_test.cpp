// Issue 15, point 8: `kubectl logs` on `tailor cluster up`, with the real kubectl: a container's
// stdout and stderr as it wrote them (read by tailor-cluster from the log file the node agent
// gave containerd), --tail, --timestamps, --limit-bytes, -f (streams new lines, and ends by
// itself when the followed container exits), --previous (the attempt before a restart), -c, and
// the API's and the kubelet's words when there is no log to give.
#include <gtest/gtest.h>

#include <chrono>
#include <regex>
#include <string>

#include "tests/e2e/e2e_cluster.h"
#include "tests/e2e/workload_manifests.h"

namespace tailor::e2e {
namespace {

using std::chrono::seconds;

constexpr seconds kStart{90};

// "app" writes one line to each stream (apart in time: containerd reads the two pipes
// separately, so lines written at once may swap), then a numbered tick every half second; "crash"
// writes a line, then exits 1 two seconds later and is restarted (restartPolicy Always).
const std::string kPod = pod_manifest(
    {.name = "talker",
     .containers = {{.name = "app",
                     .command = shell("echo first; sleep 0.3; echo to-stderr >&2; sleep 0.3; i=0; "
                                      "while true; do i=$((i+1)); echo \"tick $i\"; sleep 0.5; "
                                      "done"),
                     .requests = {{"cpu", "10m"}, {"memory", "16Mi"}}},
                    {.name = "crash",
                     .command = shell("echo attempt started; sleep 2; exit 1"),
                     .requests = {{"cpu", "10m"}, {"memory", "16Mi"}}}}});

int count_of(const std::string& text, const std::string& what) {
  int n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

class PodLogs : public ::testing::Test {
 protected:
  PodLogs() : ns_("e2e-pod-logs") {}
  void SetUp() override {
    ASSERT_TRUE(ns_.apply(kPod));
    ASSERT_TRUE(
        wait_until("app has ticked and crash has restarted", kStart, [&](std::string& seen) {
          const auto pod = ns_.pod("talker");
          seen = pod ? pod->summary() : "no pod";
          if (!pod || !pod->container("crash") || pod->container("crash")->restart_count < 1)
            return false;
          const CommandResult r = ns_.kubectl("logs talker -c app");
          seen += " | " + r.out + r.err;
          return r.exit_code == 0 && r.out.find("tick 3\n") != std::string::npos;
        }));
  }
  TestNamespace ns_;
};

TEST_F(PodLogs, WhatTheContainerWroteWithTailTimestampsAndLimitBytes) {
  const CommandResult all = ns_.kubectl("logs talker -c app");
  ASSERT_EQ(all.exit_code, 0) << all.err;
  EXPECT_EQ(all.out.rfind("first\nto-stderr\ntick 1\ntick 2\n", 0), 0u) << all.out;

  const CommandResult tail = ns_.kubectl("logs talker -c app --tail=2");
  ASSERT_EQ(tail.exit_code, 0) << tail.err;
  EXPECT_TRUE(std::regex_match(tail.out, std::regex("tick [0-9]+\ntick [0-9]+\n"))) << tail.out;

  const CommandResult stamped = ns_.kubectl("logs talker -c app --timestamps --tail=1");
  ASSERT_EQ(stamped.exit_code, 0) << stamped.err;
  EXPECT_TRUE(std::regex_match(
      stamped.out,
      std::regex(
          "[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{9}Z tick [0-9]+\n")))
      << stamped.out;

  const CommandResult limited = ns_.kubectl("logs talker -c app --limit-bytes=3");
  ASSERT_EQ(limited.exit_code, 0) << limited.err;
  EXPECT_EQ(limited.out, "fir");
}

TEST_F(PodLogs, FollowStreamsNewLinesAndEndsWithTheContainer) {
  // Cut by kubectl after 4 s: in that time the stream brought the ticks written meanwhile.
  const CommandResult followed = ns_.kubectl("logs -f talker -c app --tail=1 --request-timeout=4s");
  EXPECT_GE(count_of(followed.out, "tick "), 4) << followed.out << followed.err;
  EXPECT_EQ(followed.out.find("first"), std::string::npos) << "--tail=1 starts at the last line";

  // crash runs 2 s per attempt: a follow of it returns by itself, with what the attempt wrote.
  const auto started = std::chrono::steady_clock::now();
  const CommandResult ended = ns_.kubectl("logs -f talker -c crash --request-timeout=30s");
  EXPECT_LT(std::chrono::steady_clock::now() - started, seconds(25))
      << "the follow did not end with the container";
  EXPECT_EQ(ended.exit_code, 0) << ended.err;
  EXPECT_EQ(ended.out, "attempt started\n");
}

TEST_F(PodLogs, PreviousIsTheAttemptBeforeTheRestart) {
  const CommandResult previous = ns_.kubectl("logs talker -c crash --previous");
  ASSERT_EQ(previous.exit_code, 0) << previous.err;
  EXPECT_EQ(previous.out, "attempt started\n");

  const CommandResult none = ns_.kubectl("logs talker -c app --previous");
  EXPECT_NE(none.exit_code, 0);
  EXPECT_NE(none.err.find("previous terminated container \"app\" in pod \"talker\" not found"),
            std::string::npos)
      << none.err;
}

TEST_F(PodLogs, TheApisWordsWhenThereIsNoLog) {
  const std::string log = "/api/v1/namespaces/" + ns_.name() + "/pods/talker/log";
  const CommandResult unnamed = ns_.kubectl("get --raw " + log);
  EXPECT_NE(unnamed.exit_code, 0);
  EXPECT_NE(unnamed.err.find("a container name must be specified for pod talker, choose one of: "
                             "[app crash]"),
            std::string::npos)
      << unnamed.err;

  const CommandResult wrong = ns_.kubectl("get --raw '" + log + "?container=nope'");
  EXPECT_NE(wrong.err.find("container nope is not valid for pod talker"), std::string::npos)
      << wrong.err;

  const CommandResult bad_tail = ns_.kubectl("get --raw '" + log + "?container=app&tailLines=-1'");
  EXPECT_NE(bad_tail.err.find("tailLines: Invalid value: -1: must be greater than or equal to 0"),
            std::string::npos)
      << bad_tail.err;

  const CommandResult missing = ns_.kubectl("logs nosuchpod");
  EXPECT_NE(missing.err.find("pods \"nosuchpod\" not found"), std::string::npos) << missing.err;
}

}  // namespace
}  // namespace tailor::e2e
