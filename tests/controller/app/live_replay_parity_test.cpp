// Production and replay see the same inputs: a recorded stream of node-agent windows, fed through
// the live controller's path (measured_window and ModelRegistry::observe_window, what
// Controller::on_usage calls once it has found the pod's policy and request) and replayed from its
// recording by `tailor replay`'s path (read_traces, replay_strategy), gets the same
// recommendations at the same times.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <numbers>
#include <sstream>
#include <vector>

#include "controller/app/measured_window.h"
#include "controller/recommendation/model_registry.h"
#include "recommender/recorded_windows.h"
#include "recommender/replay.h"
#include "recommender/strategy.h"
#include "recommender/trace.h"

namespace tailor::controller {
namespace {

namespace rec = recommender;
using rec::kMiB;

constexpr std::int64_t kStartMs = 1'700'000'007'000;  // not on a period boundary
constexpr std::int64_t kReportMs = 15'000;            // --usage-report-interval
constexpr std::int64_t kSampleMs = 5'000;             // --usage-sample-interval
constexpr std::int64_t kDayMs = 24 * 3600 * 1000;

// Deterministic noise in [0, 1).
struct Noise {
  std::uint64_t state = 42;
  double next() {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(state >> 11) / static_cast<double>(1ULL << 53);
  }
};

// Two days of one container's agent windows as the usage stream delivers them: three readings
// 5 s apart per 15 s report (the window runs from the first to the last reading), a daily CPU
// cycle with bursts above the mean, memory wandering under a start-up peak, and the agent away for
// 40 minutes in the middle (no windows).
std::vector<usage::UsageWindow> agent_stream() {
  std::vector<usage::UsageWindow> out;
  Noise noise;
  for (std::int64_t at = kStartMs; at < kStartMs + 2 * kDayMs; at += kReportMs) {
    const std::int64_t since = at - kStartMs;
    if (since >= 30 * 3600 * 1000 && since < 30 * 3600 * 1000 + 40 * 60 * 1000) continue;
    const double day = std::sin(2 * std::numbers::pi * static_cast<double>(since) / kDayMs);
    const double cpu = 0.6 + 0.4 * day + 0.2 * noise.next();
    const double memory = (since == 0 ? 460 : 400 + 25 * day + 10 * noise.next()) * kMiB;
    out.push_back({.node = "node-1",
                   .ns = "shop",
                   .pod = "web-0",
                   .pod_uid = "uid-web-0",
                   .container = "app",
                   .start_unix_ms = at,
                   .end_unix_ms = at + 2 * kSampleMs,
                   .samples = 3,
                   .cpu_cores_mean = cpu,
                   .cpu_cores_max = cpu * (1 + 2 * noise.next()),
                   .memory_working_set_max_bytes = memory,
                   .memory_peak_bytes = memory + 4 * kMiB * noise.next()});
  }
  return out;
}

// What replay did at each period: the requests the period ran with and the target after it.
struct ReplayedPeriod {
  rec::Resources request;
  rec::Resources target;
};

class LiveReplayParity : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    factory_ = rec::make_strategy(GetParam());
    stream_ = agent_stream();
    // The recording: what the controller's models were handed, written as `tailor replay` reads.
    std::vector<rec::RecordedWindow> recorded;
    for (const usage::UsageWindow& w : stream_)
      recorded.push_back({w.container, measured_window(w)});
    path_ = std::filesystem::temp_directory_path() /
            ("parity-" + GetParam() + "-" + std::to_string(::getpid()) + ".csv");
    std::ofstream(path_) << [&] {
      std::ostringstream out;
      rec::write_recorded_windows(out, recorded);
      return out.str();
    }();
  }
  void TearDown() override { std::filesystem::remove(path_); }

  std::map<rec::Seconds, ReplayedPeriod> replay() {
    rec::TraceDiagnostics diag;
    std::vector<rec::ContainerSeries> series = rec::read_traces({path_.string()}, diag);
    EXPECT_EQ(diag.rows_rejected, 0u);
    EXPECT_EQ(diag.rows_read, stream_.size());
    EXPECT_EQ(series.size(), 1u);
    std::vector<rec::TimelinePoint> timeline;
    rec::replay_strategy(series.at(0), *factory_, rec::ReplayConfig{}, &timeline);
    std::map<rec::Seconds, ReplayedPeriod> out;
    for (const rec::TimelinePoint& p : timeline) {
      // OOM kills are replay's own (usage over its requests); the live side here has none.
      EXPECT_LE(p.memory_usage, p.memory_request) << "replay OOM at " << p.time;
      out[p.time] = {{p.cpu_request, p.memory_request}, p.target};
    }
    return out;
  }

  std::unique_ptr<rec::StrategyFactory> factory_;
  std::vector<usage::UsageWindow> stream_;
  std::filesystem::path path_;
};

TEST_P(LiveReplayParity, SameRecommendationsAtTheSameTimes) {
  const std::map<rec::Seconds, ReplayedPeriod> replayed = replay();
  // 2 days of 5-minute periods less the agent's 40 minutes away (and a partial period each side).
  ASSERT_GE(replayed.size(), 2u * 288 - 9);

  recommendation::ModelRegistry models(
      std::shared_ptr<const rec::StrategyFactory>(rec::make_strategy(GetParam()).release()));
  const recommendation::ContainerModelKey key{"shop/web", "app"};
  std::map<rec::Seconds, rec::Resources> live;  // period start -> target at its end
  auto ask = [&] {
    const rec::Seconds period = models.samples(key)->last;
    live[period] = models.recommend(key, period + rec::kSamplePeriod)->target;
  };
  long samples = 0;
  for (const usage::UsageWindow& w : stream_) {
    const rec::MeasuredWindow m = measured_window(w);
    // The pod runs with what replay's update rule applied (the actuator's part in production).
    const rec::Seconds period = m.start_ms / 1000 / rec::kSamplePeriod * rec::kSamplePeriod;
    models.observe_window(key, window_source(w), m, replayed.at(period).request);
    // A period completed (at most one per 15 s window: the counts below would differ).
    if (models.samples(key) && models.samples(key)->count > samples) {
      samples = models.samples(key)->count;
      ask();
    }
  }
  // The pod goes quiet: a pass closes the period it left open, as the file's end closes replay's.
  EXPECT_EQ(models.close_periods(stream_.back().end_unix_ms / 1000 + rec::kSamplePeriod), 1u);
  ask();

  ASSERT_EQ(live.size(), replayed.size());
  for (const auto& [period, target] : live) {
    ASSERT_TRUE(replayed.contains(period)) << period;
    const rec::Resources& want = replayed.at(period).target;
    ASSERT_EQ(target.cpu_cores, want.cpu_cores) << "period " << period;
    ASSERT_EQ(target.memory_bytes, want.memory_bytes) << "period " << period;
  }
}

// The path before: each agent window handed to the model as it came (15 s samples, mean CPU
// only). Its recommendations are not replay's, which is what the parity above guards against.
TEST_P(LiveReplayParity, WindowsFedAsTheyCameRecommendOtherwise) {
  const std::map<rec::Seconds, ReplayedPeriod> replayed = replay();
  recommendation::ModelRegistry models(
      std::shared_ptr<const rec::StrategyFactory>(rec::make_strategy(GetParam()).release()));
  const recommendation::ContainerModelKey key{"shop/web", "app"};
  std::size_t compared = 0, differ = 0;
  for (const usage::UsageWindow& w : stream_) {
    const rec::MeasuredWindow m = measured_window(w);
    const rec::Seconds start = m.start_ms / 1000;
    const rec::Seconds period = start / rec::kSamplePeriod * rec::kSamplePeriod;
    models.observe(key,
                   {.start = start,
                    .length = m.end_ms / 1000 - start,
                    .cpu_cores = m.cpu_mean_cores,
                    .memory_peak_bytes = m.memory_peak_bytes},
                   replayed.at(period).request);
    // The last window that starts in its period: ask at the period's end, as replay did.
    if ((start + kReportMs / 1000) / rec::kSamplePeriod * rec::kSamplePeriod == period) continue;
    const rec::Resources old = models.recommend(key, period + rec::kSamplePeriod)->target;
    const rec::Resources& want = replayed.at(period).target;
    ++compared;
    if (old.cpu_cores != want.cpu_cores || old.memory_bytes != want.memory_bytes) ++differ;
  }
  EXPECT_GE(compared, replayed.size() - 2);
  std::cout << GetParam() << ": " << differ << " of " << compared << " periods differ\n";
  EXPECT_GT(differ, compared / 10) << differ << " of " << compared << " periods differ";
}

INSTANTIATE_TEST_SUITE_P(Strategies, LiveReplayParity, ::testing::Values("default", "vpa"));

}  // namespace
}  // namespace tailor::controller
