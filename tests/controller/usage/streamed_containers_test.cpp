#include "controller/usage/streamed_containers.h"

#include <gtest/gtest.h>

#include <string>

namespace tailor::controller::usage {
namespace {

constexpr std::int64_t kEnd = 1'800'000'000'000;

UsageWindow window(std::string container, std::int64_t end_ms, std::int64_t span_ms,
                   std::uint32_t samples) {
  return {.node = "n1",
          .ns = "shop",
          .pod = "web-1",
          .pod_uid = "u1",
          .container = std::move(container),
          .start_unix_ms = end_ms - span_ms,
          .end_unix_ms = end_ms,
          .samples = samples};
}

TEST(StreamedContainers, ReportIntervalFromTheWindowAndThePreviousOne) {
  struct Case {
    std::string name;
    std::int64_t span_ms;
    std::uint32_t samples;
    std::int64_t since_previous_ms;  // 0: no previous window
    std::int64_t interval_ms;
  } cases[] = {
      {"agent defaults: 5s samples, 15s reports", 10'000, 3, 0, 15'000},
      {"5s samples, 60s reports", 55'000, 12, 0, 60'000},
      {"10s samples, 2m reports", 110'000, 12, 0, 120'000},
      {"one sample shows no interval", 0, 1, 0, kMinReportIntervalMs},
      {"a container started late in its window", 2'000, 2, 0, kMinReportIntervalMs},
      {"one sample per 60s report, after the previous window", 0, 1, 60'000, 60'000},
      {"a report lost in between", 10'000, 3, 30'000, 30'000},
      {"previous window 5s before (agent restarted)", 10'000, 3, 5'000, 15'000},
      {"previous window 11m before: the agent was away", 10'000, 3, 11 * 60'000, 15'000},
  };
  for (const Case& c : cases) {
    const std::int64_t previous = c.since_previous_ms == 0 ? 0 : kEnd - c.since_previous_ms;
    EXPECT_EQ(report_interval_ms(window("app", kEnd, c.span_ms, c.samples), previous),
              c.interval_ms)
        << c.name;
  }
}

TEST(StreamedContainers, AgentCoversReadingsUpToTwoReportIntervalsAfterItsWindow) {
  struct Case {
    std::string name;
    std::int64_t interval_ms;
    std::int64_t reading_end_ms;
    bool covered;
  } cases[] = {
      {"reading before the agent's window ended", 15'000, kEnd - 40'000, true},
      {"reading at the window's end", 15'000, kEnd, true},
      {"next window due", 15'000, kEnd + 15'000, true},
      {"next window late by one interval", 15'000, kEnd + 30'000, true},
      {"agent stopped", 15'000, kEnd + 30'001, false},
      {"slow agent, next window due", 60'000, kEnd + 100'000, true},
      {"slow agent stopped", 60'000, kEnd + 120'001, false},
  };
  for (const Case& c : cases) {
    const AgentWindowSeen seen{.end_unix_ms = kEnd, .report_interval_ms = c.interval_ms};
    EXPECT_EQ(agent_covers(seen, c.reading_end_ms), c.covered) << c.name;
  }
}

TEST(StreamedContainers, CoversOnlyTheContainersAnAgentStreams) {
  StreamedContainers streamed;
  streamed.record(window("app", kEnd, 10'000, 3));
  EXPECT_TRUE(streamed.covers(window("app", kEnd + 20'000, 15'000, 1)));
  EXPECT_FALSE(streamed.covers(window("sidecar", kEnd + 20'000, 15'000, 1)));
  UsageWindow other_pod = window("app", kEnd + 20'000, 15'000, 1);
  other_pod.pod = "web-2";
  EXPECT_FALSE(streamed.covers(other_pod));
  EXPECT_FALSE(streamed.covers(window("app", kEnd + 31'000, 15'000, 1)));
}

TEST(StreamedContainers, ALateWindowDoesNotMoveTheEndBack) {
  StreamedContainers streamed;
  streamed.record(window("app", kEnd, 10'000, 3));
  streamed.record(window("app", kEnd - 60'000, 10'000, 3));
  EXPECT_TRUE(streamed.covers(window("app", kEnd + 30'000, 15'000, 1)));
  streamed.record(window("app", kEnd + 15'000, 10'000, 3));
  EXPECT_TRUE(streamed.covers(window("app", kEnd + 45'000, 15'000, 1)));
}

TEST(StreamedContainers, SingleSampleWindowsShowTheirIntervalFromOneToTheNext) {
  StreamedContainers streamed;
  streamed.record(window("app", kEnd, 0, 1));
  EXPECT_FALSE(streamed.covers(window("app", kEnd + 100'000, 15'000, 1)));
  streamed.record(window("app", kEnd + 60'000, 0, 1));
  EXPECT_TRUE(streamed.covers(window("app", kEnd + 160'000, 15'000, 1)));
  EXPECT_FALSE(streamed.covers(window("app", kEnd + 180'001, 15'000, 1)));
}

TEST(StreamedContainers, ForgetsContainersWhoseAgentStoppedLongAgo) {
  StreamedContainers streamed;
  streamed.record(window("app", kEnd, 10'000, 3));
  streamed.record(window("sidecar", kEnd + 60'000, 10'000, 3));
  EXPECT_EQ(streamed.forget_uncovered_since(kEnd + 30'000), 0u);
  EXPECT_EQ(streamed.forget_uncovered_since(kEnd + 30'001), 1u);
  EXPECT_EQ(streamed.size(), 1u);
  EXPECT_FALSE(streamed.covers(window("app", kEnd, 15'000, 1)));
  EXPECT_TRUE(streamed.covers(window("sidecar", kEnd + 60'000, 15'000, 1)));
}

}  // namespace
}  // namespace tailor::controller::usage
