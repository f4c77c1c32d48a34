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
#include <iterator>
#include <map>
#include <numbers>
#include <sstream>
#include <vector>

#include "controller/app/measured_window.h"
#include "controller/app/quantities.h"
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

constexpr std::int64_t kHourMs = 3600 * 1000;
constexpr std::int64_t kDays = 11;
// Where the stream steps: memory down from ~400 MiB to ~200 MiB after two days (the default
// strategy's week-long peak floor lets it go after day 9), and a CPU burst of 3 cores (a few
// times the request) for half an hour on day 5.
constexpr std::int64_t kMemoryStepMs = 2 * kDayMs;
constexpr std::int64_t kBurstMs = 5 * kDayMs + 10 * kHourMs;
constexpr std::int64_t kBurstLengthMs = kHourMs / 2;

// Eleven days of one container's agent windows as the usage stream delivers them: three readings
// 5 s apart per 15 s report (the window runs from the first to the last reading), a daily CPU
// cycle with bursts above the mean and a half-hour burst of load, memory wandering under a
// start-up peak and then stepping down, and the agent away for 40 minutes (no windows).
std::vector<usage::UsageWindow> agent_stream() {
  std::vector<usage::UsageWindow> out;
  Noise noise;
  for (std::int64_t at = kStartMs; at < kStartMs + kDays * kDayMs; at += kReportMs) {
    const std::int64_t since = at - kStartMs;
    if (since >= 30 * kHourMs && since < 30 * kHourMs + 40 * 60 * 1000) continue;
    const double day = std::sin(2 * std::numbers::pi * static_cast<double>(since) / kDayMs);
    const bool burst = since >= kBurstMs && since < kBurstMs + kBurstLengthMs;
    const double cpu = burst ? 3 + 0.2 * noise.next() : 0.6 + 0.4 * day + 0.2 * noise.next();
    const double level = since < kMemoryStepMs ? 400 : 200;
    const double memory = (since == 0 ? 460 : level + 25 * day + 10 * noise.next()) * kMiB;
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

// What replay did for the period holding `t` (the last one starting at or before it).
const ReplayedPeriod& replayed_at(const std::map<rec::Seconds, ReplayedPeriod>& replayed,
                                  rec::Seconds t) {
  auto it = replayed.upper_bound(t);
  EXPECT_NE(it, replayed.begin()) << t;
  return std::prev(it)->second;
}

// The requests the API would hold after a resize to `r`: whole millicores and bytes, rounded up.
rec::Resources as_quantities(const rec::Resources& r) { return to_resources(to_resource_list(r)); }

// The live path run in lockstep with the stream: each window folded with the request the pod
// runs with (ModelRegistry::observe_window), and once it completed a period, the strategy's rule
// asked for this pod (ModelRegistry::decide, what a pass does through reconcile) and a change
// applied as the API stores it (Quantity rounding) and told to the model
// (ModelRegistry::applied, what an accepted resize does). The requests and the recommendations
// it gets are replay's of the same recording, a burst and a memory step included.
TEST_P(LiveReplayParity, SameRequestsAndRecommendationsAsReplay) {
  const std::map<rec::Seconds, ReplayedPeriod> replayed = replay();
  // 11 days of 5-minute periods less the agent's 40 minutes away, plus the burst's own periods.
  ASSERT_GE(replayed.size(), kDays * 288 - 9);

  recommendation::ModelRegistry models(
      std::shared_ptr<const rec::StrategyFactory>(rec::make_strategy(GetParam()).release()));
  const recommendation::ContainerModelKey key{"shop/web", "app"};
  rec::Resources request = replayed.begin()->second.request;
  rec::Seconds last_change = replayed.begin()->first;
  std::map<rec::Seconds, rec::Resources> live;  // period start -> target at its end
  std::size_t compared = 0, resizes = 0;
  double burst_request = 0, final_memory = 0;
  for (const usage::UsageWindow& w : stream_) {
    const rec::MeasuredWindow m = measured_window(w);
    const rec::Seconds start = m.start_ms / 1000;
    // The pod runs with what the live rule set; replay's rule set the same.
    const rec::Resources& want = replayed_at(replayed, start).request;
    ASSERT_NEAR(request.cpu_cores, want.cpu_cores, 0.001) << "window at " << start;
    ASSERT_NEAR(request.memory_bytes, want.memory_bytes, 1) << "window at " << start;
    ++compared;
    if (w.start_unix_ms - kStartMs == kBurstMs + kReportMs) burst_request = request.cpu_cores;
    const std::optional<rec::Seconds> end =
        models.observe_window(key, window_source(w), m, request);
    if (!end) continue;
    live[models.samples(key)->last] = models.recommend(key, *end)->target;
    const auto next =
        models.decide(key, "shop/web-0", "uid-web-0", request, *end, *end - last_change);
    if (!next || *next == request) continue;
    request = as_quantities(*next);
    models.applied(key, request, *end);
    last_change = *end;
    ++resizes;
  }
  final_memory = request.memory_bytes;
  // The pod goes quiet: a pass closes the period it left open, as the file's end closes replay's.
  EXPECT_EQ(models.close_periods(stream_.back().end_unix_ms / 1000 + rec::kSamplePeriod), 1u);
  live[models.samples(key)->last] =
      models.recommend(key, stream_.back().end_unix_ms / 1000 + rec::kSamplePeriod)->target;

  EXPECT_EQ(compared, stream_.size());
  EXPECT_GT(resizes, 0u);
  // Every period whose end the rule was asked at (a window completing two is asked once).
  ASSERT_GE(live.size(), replayed.size() - 20);
  for (const auto& [period, target] : live) {
    ASSERT_TRUE(replayed.contains(period)) << period;
    const rec::Resources& want = replayed.at(period).target;
    ASSERT_NEAR(target.cpu_cores, want.cpu_cores, 1e-9 * want.cpu_cores) << "period " << period;
    ASSERT_NEAR(target.memory_bytes, want.memory_bytes, 1e-9 * want.memory_bytes)
        << "period " << period;
  }
  // Memory followed the step down (VPA's within its 12 h rule, the default once its week-long
  // peak floor let go), from ~460 MiB.
  EXPECT_LT(final_memory, 330 * kMiB);
  if (GetParam() == "default") {
    // The burst window ended its period early and the burst rule raised the pod at once: the
    // second window of the burst already runs with more than the burst's 3 cores.
    EXPECT_GT(burst_request, 3.0);
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
    // The first two days, while the models still learn (later the day-long levels of both paths
    // agree more often, which this test is not about).
    if (w.start_unix_ms - kStartMs >= 2 * kDayMs) break;
    const rec::MeasuredWindow m = measured_window(w);
    const rec::Seconds start = m.start_ms / 1000;
    const rec::Seconds period = start / rec::kSamplePeriod * rec::kSamplePeriod;
    models.observe(key,
                   {.start = start,
                    .length = m.end_ms / 1000 - start,
                    .cpu_cores = m.cpu_mean_cores,
                    .memory_peak_bytes = m.memory_peak_bytes},
                   replayed_at(replayed, start).request);
    // The last window that starts in its period: ask at the period's end, as replay did.
    if ((start + kReportMs / 1000) / rec::kSamplePeriod * rec::kSamplePeriod == period) continue;
    const rec::Resources old = models.recommend(key, period + rec::kSamplePeriod)->target;
    if (!replayed.contains(period)) continue;  // a period the burst cut
    const rec::Resources& want = replayed.at(period).target;
    ++compared;
    if (old.cpu_cores != want.cpu_cores || old.memory_bytes != want.memory_bytes) ++differ;
  }
  EXPECT_GE(compared, 2u * 288 - 9);
  std::cout << GetParam() << ": " << differ << " of " << compared << " periods differ\n";
  EXPECT_GT(differ, compared / 10) << differ << " of " << compared << " periods differ";
}

INSTANTIATE_TEST_SUITE_P(Strategies, LiveReplayParity, ::testing::Values("default", "vpa"));

}  // namespace
}  // namespace tailor::controller
