#include "recommender/sample_period.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace tailor::recommender {
namespace {

constexpr std::int64_t kS = 1000;  // ms per second
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

MeasuredWindow window(std::int64_t start_s, std::int64_t end_s, double mean, double peak,
                      double memory) {
  return {.start_ms = start_s * kS,
          .end_ms = end_s * kS,
          .cpu_mean_cores = mean,
          .cpu_peak_cores = peak,
          .memory_peak_bytes = memory};
}

// A period as the fold yields it: start, mean CPU, CPU peak, memory peak.
struct Period {
  Seconds start;
  double mean, peak, memory;
};

struct FoldCase {
  std::string name;
  std::vector<MeasuredWindow> windows;
  std::vector<Period> completed;    // by the windows, in order
  std::optional<Period> left_open;  // what close() yields after them
};

void expect_period(const TraceWindow& got, const Period& want, const std::string& where) {
  EXPECT_EQ(got.start, want.start) << where;
  EXPECT_NEAR(got.avg_cpu, want.mean, 1e-12) << where;
  EXPECT_DOUBLE_EQ(got.max_cpu, want.peak) << where;
  EXPECT_DOUBLE_EQ(got.p95_cpu, want.peak) << where << " (p95 not measured: the peak)";
  EXPECT_DOUBLE_EQ(got.max_mem, want.memory) << where;
}

TEST(SamplePeriodFold, FoldsMeansByDurationAndPeaksByMax) {
  const std::vector<FoldCase> cases = {
      {"one window filling the period",
       {window(0, 300, 1.5, 2, 100)},
       {{0, 1.5, 2, 100}},
       std::nullopt},
      {"means weighted by the time each window covers",
       {window(0, 100, 1, 1, 100), window(100, 300, 4, 6, 50)},
       {{0, 3, 6, 100}},
       std::nullopt},
      {"agent windows with gaps between them: only covered time weighs",
       {window(0, 10, 1, 2, 10), window(15, 25, 3, 3, 30), window(30, 50, 2, 9, 20)},
       {},
       Period{0, (10 * 1 + 10 * 3 + 20 * 2) / 40.0, 9, 30}},
      {"a window straddling the boundary splits its mean and gives both its peaks",
       {window(0, 290, 1, 1, 100), window(290, 310, 2, 5, 700)},
       {{0, (290 * 1 + 10 * 2) / 300.0, 5, 700}},
       Period{300, 2, 5, 700}},
      {"a window ending on the boundary completes the period",
       {window(200, 300, 1, 1, 1)},
       {{0, 1, 1, 1}},
       std::nullopt},
      {"a gap of periods yields nothing for them",
       {window(0, 15, 1, 1, 1), window(900, 915, 2, 2, 2)},
       {{0, 1, 1, 1}},
       Period{900, 2, 2, 2}},
      {"a window covering several periods (a Prometheus step) gives each its mean and peaks",
       {window(0, 900, 0.5, 0.5, 64)},
       {{0, 0.5, 0.5, 64}, {300, 0.5, 0.5, 64}, {600, 0.5, 0.5, 64}},
       std::nullopt},
      {"a missing memory reading (0) does not lower the peak",
       {window(0, 100, 1, 1, 500), window(100, 200, 1, 1, 0)},
       {},
       Period{0, 1, 1, 500}},
      {"a period without memory readings has none",
       {window(0, 300, 1, 1, 0)},
       {{0, 1, 1, 0}},
       std::nullopt},
      {"a peak below the mean (a source with no peak) is the mean",
       {window(0, 300, 2, 0, 1)},
       {{0, 2, 2, 1}},
       std::nullopt},
      {"an overlapping window counts from the previous end",
       {window(0, 100, 1, 1, 1), window(50, 200, 4, 4, 1)},
       {},
       Period{0, (100 * 1 + 100 * 4) / 200.0, 4, 1}},
      {"times before the epoch fall in their own periods",
       {window(-15, 0, 1, 1, 1)},
       {{-300, 1, 1, 1}},
       std::nullopt},
  };
  for (const FoldCase& c : cases) {
    SamplePeriodFold fold;
    std::vector<TraceWindow> done;
    for (const MeasuredWindow& w : c.windows) {
      for (const TraceWindow& p : fold.fold(w)) done.push_back(p);
    }
    ASSERT_EQ(done.size(), c.completed.size()) << c.name;
    for (std::size_t i = 0; i < done.size(); ++i) {
      expect_period(done[i], c.completed[i], c.name + ", period " + std::to_string(i));
    }
    std::optional<TraceWindow> open = fold.close();
    ASSERT_EQ(open.has_value(), c.left_open.has_value()) << c.name;
    if (open) expect_period(*open, *c.left_open, c.name + ", left open");
    EXPECT_FALSE(fold.close().has_value()) << c.name << ": close() forgets the period";
  }
}

TEST(SamplePeriodFold, RefusesWindowsItCannotFoldAndSaysWhy) {
  struct Bad {
    std::string name;
    MeasuredWindow w;
    std::string says;
  };
  const std::vector<Bad> cases = {
      {"zero duration", window(100, 100, 1, 1, 1), "duration must be positive"},
      {"negative duration", window(100, 90, 1, 1, 1), "duration must be positive"},
      {"NaN mean", window(100, 110, kNaN, 1, 1), "mean CPU is not a number"},
      {"NaN peak", window(100, 110, 1, kNaN, 1), "CPU peak is not a number"},
      {"NaN memory", window(100, 110, 1, 1, kNaN), "memory peak is not a number"},
      {"negative mean", window(100, 110, -1, 1, 1), "mean CPU is negative"},
      {"negative memory", window(100, 110, 1, 1, -5), "memory peak is negative"},
      {"infinite peak", window(100, 110, 1, kInf, 1), "CPU peak is infinite"},
      {"before the previous window", window(40, 50, 1, 1, 1), "not after the previous window"},
      {"the previous window again", window(50, 60, 1, 1, 1), "not after the previous window"},
  };
  for (const Bad& c : cases) {
    SamplePeriodFold fold;
    fold.fold(window(50, 60, 1, 1, 7));
    try {
      fold.fold(c.w);
      ADD_FAILURE() << c.name << ": accepted";
    } catch (const UsageWindowError& e) {
      EXPECT_NE(std::string(e.what()).find(c.says), std::string::npos)
          << c.name << ": " << e.what();
    }
    // Nothing of the refused window was kept: the open period is as the first window left it.
    std::optional<TraceWindow> open = fold.close();
    ASSERT_TRUE(open) << c.name;
    EXPECT_DOUBLE_EQ(open->avg_cpu, 1) << c.name;
    EXPECT_DOUBLE_EQ(open->max_mem, 7) << c.name;
  }
}

// kEarlyCloseRatio: a window at least twice over the CPU request ends the period early; the part
// before it, the window, and the rest of the period after it are periods of their own lengths.
TEST(SamplePeriodFold, AWindowFarOverTheRequestEndsThePeriodEarly) {
  SamplePeriodFold fold;
  EXPECT_TRUE(fold.fold(window(0, 15, 1, 1, 5), 1).empty());
  EXPECT_TRUE(fold.fold(window(15, 30, 1.99, 2, 5), 1).empty());  // under twice: noise
  std::vector<TraceWindow> done = fold.fold(window(30, 45, 3, 4, 6), 1.5);
  ASSERT_EQ(done.size(), 2u);
  EXPECT_EQ(done[0].start, 0);
  EXPECT_EQ(done[0].length, 30);
  EXPECT_DOUBLE_EQ(done[0].avg_cpu, (1 + 1.99) / 2);
  EXPECT_EQ(done[1].start, 30);
  EXPECT_EQ(done[1].length, 15);
  EXPECT_DOUBLE_EQ(done[1].avg_cpu, 3);
  EXPECT_DOUBLE_EQ(done[1].max_cpu, 4);
  EXPECT_DOUBLE_EQ(done[1].max_mem, 6);
  EXPECT_EQ(usage_sample(done[1], kSamplePeriod).length, 15);
  // The rest of the period, from the cut.
  EXPECT_TRUE(fold.fold(window(45, 60, 1, 1, 5), 1.5).empty());
  EXPECT_EQ(fold.open_period_end(), std::optional<Seconds>(300));
  done = fold.fold(window(290, 310, 1, 1, 5), 1.5);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].start, 45);
  EXPECT_EQ(done[0].length, 255);
  // The next period is whole again (length 0: the series' window).
  done = fold.fold(window(590, 610, 1, 1, 5), 1.5);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].start, 300);
  EXPECT_EQ(done[0].length, 0);
  // No request (0): nothing is far over it.
  SamplePeriodFold unrequested;
  EXPECT_TRUE(unrequested.fold(window(0, 15, 50, 50, 5), 0).empty());
}

TEST(SamplePeriodFold, KeepsTimeOrderAcrossClose) {
  SamplePeriodFold fold;
  fold.fold(window(0, 15, 1, 1, 1));
  ASSERT_TRUE(fold.close());
  EXPECT_THROW(fold.fold(window(5, 10, 1, 1, 1)), UsageWindowError);
  EXPECT_EQ(fold.open_period_end(), std::nullopt);
  fold.fold(window(15, 30, 1, 1, 1));
  EXPECT_EQ(fold.open_period_end(), std::optional<Seconds>(300));
}

// What a scrape shows of a pod's latest usage: the open period as it stands, else the last one
// completed; asking changes nothing.
TEST(SamplePeriodFold, LatestIsTheOpenPeriodElseTheLastCompleted) {
  SamplePeriodFold fold(60);
  EXPECT_EQ(fold.latest(), std::nullopt);
  fold.fold(window(0, 30, 1, 2, 100));
  expect_period(*fold.latest(), {0, 1, 2, 100}, "open");
  fold.fold(window(30, 60, 3, 4, 50));  // completes the period
  expect_period(*fold.latest(), {0, 2, 4, 100}, "completed");
  expect_period(*fold.latest(), {0, 2, 4, 100}, "asked again");
  const auto next = fold.fold(window(60, 120, 5, 5, 10));
  ASSERT_EQ(next.size(), 1u);  // the next period, unaffected by what the first left
  expect_period(next[0], {60, 5, 5, 10}, "next");
  ASSERT_TRUE(fold.close() == std::nullopt);
  expect_period(*fold.latest(), {60, 5, 5, 10}, "after close");
}

TEST(UsageSample, CarriesMeanPeaksAndTheWholePeriod) {
  TraceWindow w{.start = 600, .avg_cpu = 0.5, .max_cpu = 2, .p95_cpu = 1, .max_mem = 1e9};
  UsageSample s = usage_sample(w, kSamplePeriod);
  EXPECT_EQ(s.start, 600);
  EXPECT_EQ(s.length, kSamplePeriod);
  EXPECT_DOUBLE_EQ(s.cpu_cores, 0.5);
  EXPECT_DOUBLE_EQ(s.cpu_peak_cores, 2);
  EXPECT_DOUBLE_EQ(s.memory_peak_bytes, 1e9);
  w.max_cpu = 0;  // a trace row without a peak column reads max = mean; never below it here
  EXPECT_DOUBLE_EQ(usage_sample(w, 60).cpu_peak_cores, 0.5);
  EXPECT_EQ(usage_sample(w, 60).length, 60);
}

}  // namespace
}  // namespace tailor::recommender
