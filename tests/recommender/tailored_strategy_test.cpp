#include "recommender/tailored_strategy.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <initializer_list>
#include <random>
#include <string>

#include "recommender/replay.h"

namespace tailor::recommender {
namespace {

constexpr double kGiB = 1024.0 * 1024 * 1024;
constexpr Seconds kWindow = 300;
constexpr int kPerDay = kDay / kWindow;

// A limit-less synthetic series: the initial requests are the first window's usage.
// Shapes are functions of the 5-minute window index; `window` resamples them at another rate.
ContainerSeries shape(int days, const std::function<double(int)>& cpu,
                      const std::function<double(int)>& mem, Seconds window = kWindow) {
  ContainerSeries s;
  s.container = "synthetic";
  s.window = window;
  for (Seconds t = 0; t < days * kDay; t += window) {
    const int i = static_cast<int>(t / kWindow);
    const double c = cpu(i), m = mem(i);
    s.windows.push_back({t, c, c, c, m, m, 0, 0});
  }
  return s;
}

struct Run {
  ContainerScore score;
  std::vector<TimelinePoint> timeline;
};

Run run(const ContainerSeries& s, const StrategyFactory& f) {
  Run r;
  r.score = replay_strategy(s, f, {}, &r.timeline);
  return r;
}

// The first window index at or after `from` whose CPU request is at least `level`.
int first_cpu_at_least(const Run& r, int from, double level) {
  for (int i = from; i < int(r.timeline.size()); ++i) {
    if (r.timeline[i].cpu_request >= level) return i;
  }
  return -1;
}

const auto flat_mem = [](int) { return kGiB; };

// The CPU side's shapes (steps down, spikes, batch runs) are in cpu_shapes_test.cpp.
// The row's label states the CPU level the config has, so a report of another config does not
// print the default's.
TEST(TailoredStrategy, TheUpdateRuleStatesTheConfiguredCpuLevel) {
  EXPECT_NE(make_default_strategy()->update_rule().find("(p85 + 15%, 12h half-life)"),
            std::string::npos);
  TailoredConfig c;
  c.cpu.half_lives = {kDay};
  c.cpu.percentiles = {0.9};
  c.cpu.margins = {0.05};
  EXPECT_NE(make_tailored_strategy(c)->update_rule().find("(p90 + 5%, 24h half-life)"),
            std::string::npos);
  c.cpu.percentiles = {0.9, 0.95};
  EXPECT_NE(make_tailored_strategy(c)->update_rule().find("(the best of 2 models)"),
            std::string::npos);
}

TEST(TailoredStrategy, StepUpIsFollowedWithinAnHour) {
  const int step = 3 * kPerDay;
  auto s = shape(
      5, [&](int i) { return i < step ? 0.5 : 1.0; }, flat_mem);
  auto ours = run(s, *make_default_strategy());
  auto vpa = run(s, *make_vpa_strategy());
  const int ours_at = first_cpu_at_least(ours, step, 1.0);
  const int vpa_at = first_cpu_at_least(vpa, step, 1.0);
  ASSERT_GE(ours_at, 0);
  EXPECT_LE(ours_at - step, 12) << "windows to cover the new level";  // one hour
  EXPECT_TRUE(vpa_at < 0 || vpa_at > ours_at) << "VPA should be slower";
  // Before the step the request was sized to the old level.
  EXPECT_LT(ours.timeline[step - 1].cpu_request, 0.75);
}

TEST(TailoredStrategy, DailyCycleIsCoveredWithoutChasingIt) {
  auto cycle = [](int i) { return 0.5 + 0.4 * std::sin(2 * M_PI * i / kPerDay); };
  auto s = shape(8, cycle, flat_mem);
  auto ours = run(s, *make_default_strategy());
  auto vpa = run(s, *make_vpa_strategy());
  EXPECT_LE(ours.score.resizes / ours.score.days, 1.0);
  EXPECT_LT(ours.score.cpu_short / ours.score.cpu_p95, 0.02);  // the daily peak is covered
  EXPECT_LE(ours.score.cpu_slack / ours.score.cpu_request,
            vpa.score.cpu_slack / vpa.score.cpu_request + 0.02);
}

TEST(TailoredStrategy, SlowMemoryLeakStaysAheadWithoutOoms) {
  // 1 GiB growing to 3 GiB over 6 days.
  auto leak = [](int i) { return kGiB * (1 + 2.0 * i / (6 * kPerDay)); };
  auto s = shape(
      6, [](int) { return 0.5; }, leak);
  auto ours = run(s, *make_default_strategy());
  auto vpa = run(s, *make_vpa_strategy());
  EXPECT_EQ(ours.score.ooms, 0);
  EXPECT_LE(ours.score.ooms, vpa.score.ooms);
  EXPECT_LT(ours.score.mem_slack / ours.score.mem_request, 0.15);
  // Each resize buys one margin of growth; VPA needs as many on a leak this steep.
  EXPECT_LE(ours.score.resizes, vpa.score.resizes * 1.1);
  EXPECT_LT(ours.score.mem_slack / ours.score.mem_request,
            vpa.score.mem_slack / vpa.score.mem_request);
}

TEST(TailoredStrategy, MemorySpikeOomRaisesLimitAtOnceAndOnlyOnce) {
  // 1 GiB, with a 1.5 GiB excursion for an hour on day 3 and again on day 4.
  auto mem = [](int i) {
    const int in_day = i % kPerDay;
    return (i / kPerDay >= 3 && in_day >= 100 && in_day < 112) ? 1.5 * kGiB : kGiB;
  };
  auto s = shape(
      5, [](int) { return 0.5; }, mem);
  auto ours = run(s, *make_default_strategy());
  EXPECT_EQ(ours.score.ooms, 1);  // the first window of the first excursion only
  const int first = 3 * kPerDay + 100;
  EXPECT_GE(ours.timeline[first + 1].memory_request, 1.5 * kGiB);
}

TEST(TailoredStrategy, BehaviourDoesNotDependOnTheSamplingRate) {
  // The same step and daily cycle sampled every minute instead of every 5 minutes.
  const int step = 3 * kPerDay;
  auto stepped = shape(
      5, [&](int i) { return i < step ? 0.5 : 1.0; }, flat_mem, 60);
  auto ours = run(stepped, *make_default_strategy());
  const int at = first_cpu_at_least(ours, step * 5, 1.0);
  ASSERT_GE(at, 0);
  EXPECT_LE(at - step * 5, 60) << "one-minute windows to cover the new level";
  auto cycle = [](int i) { return 0.5 + 0.4 * std::sin(2 * M_PI * i / kPerDay); };
  auto cycled = run(shape(8, cycle, flat_mem, 60), *make_default_strategy());
  EXPECT_LE(cycled.score.resizes / cycled.score.days, 1.0);
  EXPECT_LT(cycled.score.cpu_short / cycled.score.cpu_p95, 0.02);
}

TEST(TailoredStrategy, InvalidConfigIsRejected) {
  TailoredConfig c;
  c.down_confidence = 2 * kDay;
  EXPECT_THROW(TailoredStrategy{c}, std::invalid_argument);
  c = {};
  c.cpu.percentiles = {0.99, 0.9};  // must ascend
  EXPECT_THROW(TailoredStrategy{c}, std::invalid_argument);
  c = {};
  c.memory.tau = 1.0;
  EXPECT_THROW(TailoredStrategy{c}, std::invalid_argument);
  for (auto bad : std::initializer_list<std::function<void(CpuRule&)>>{
           [](CpuRule& r) { r.down_threshold = 1.0; },  // would lower to nothing
           [](CpuRule& r) { r.up_threshold = -0.1; },
           [](CpuRule& r) { r.burst_threshold = std::nan(""); },
           [](CpuRule& r) { r.burst_margin = -0.5; }, [](CpuRule& r) { r.burst_hold = -1; }}) {
    c = {};
    bad(c.cpu_rule);
    EXPECT_THROW(TailoredStrategy{c}, std::invalid_argument);
  }
}

TEST(TailoredStrategy, StateIsBounded) {
  auto s = shape(
      8, [](int i) { return 0.5 + 0.1 * std::sin(i); }, flat_mem);
  auto ours = run(s, *make_default_strategy());
  EXPECT_LE(ours.score.state_bytes, 1024u);
}

// Issue 14: 100,000 containers in 100 MiB. The state has a fixed size, whatever the usage: here
// CPU over six decades and memory over five, gaps, time going back, bad samples and OOM kills.
TEST(TailoredStrategy, StateFitsOneKibibyteWhateverItSees) {
  auto strategy = make_default_strategy()->create();
  const std::size_t empty = strategy->state_bytes();
  EXPECT_LE(empty, 1024u);
  std::mt19937 rng(14);
  std::uniform_real_distribution<double> decade(-3, 3), memory(6, 11);
  Seconds t = 0;
  for (int i = 0; i < 20000; ++i) {
    t += i % 997 == 0 ? 3 * kDay : i % 501 == 0 ? -2 * kHour : kWindow;
    const double cpu = i % 313 == 0 ? NAN : std::pow(10.0, decade(rng));
    strategy->observe({t, kWindow, cpu, std::pow(10.0, memory(rng))}, {1, 1e9});
    if (i % 101 == 0) strategy->on_oom(t, 1e9, 1e9);
    if (i % 12 == 0) strategy->recommend(t);
    ASSERT_EQ(strategy->state_bytes(), empty) << "sample " << i;
  }
}

TEST(TailoredStrategy, BadSamplesDoNotPoisonTheModel) {
  TailoredConfig config;
  TailoredStrategy st(config);
  for (int i = 0; i < 100; ++i) st.observe({i * kWindow, kWindow, 0.5, kGiB}, {1, 2 * kGiB});
  const Recommendation before = st.recommend(100 * kWindow);
  st.observe({101 * kWindow, kWindow, NAN, NAN}, {1, 2 * kGiB});
  st.observe({102 * kWindow, kWindow, -5, -1}, {1, 2 * kGiB});
  st.observe({103 * kWindow, kWindow, INFINITY, INFINITY}, {1, 2 * kGiB});
  st.on_oom(104 * kWindow, NAN, NAN);
  const Recommendation after = st.recommend(104 * kWindow);
  EXPECT_TRUE(std::isfinite(after.target.cpu_cores));
  EXPECT_NEAR(after.target.cpu_cores, before.target.cpu_cores, 0.1);
  EXPECT_NEAR(after.target.memory_bytes, before.target.memory_bytes, 0.1 * kGiB);
}

}  // namespace
}  // namespace tailor::recommender

namespace tailor::recommender {
namespace {

TEST(TailoredStrategy, OutlivesItsFactory) {
  // Controllers keep strategies per container and may drop the factory (ASan checks the rest).
  auto strategy = make_default_strategy()->create();
  for (int i = 0; i < 4 * kPerDay; ++i) {
    strategy->observe({i * kWindow, kWindow, 0.5, kGiB}, {1, 2 * kGiB});
  }
  const Recommendation r = strategy->recommend(4 * kDay);
  EXPECT_GE(r.target.cpu_cores, 0.5);
  EXPECT_LT(r.target.cpu_cores, 1.0);
}

}  // namespace
}  // namespace tailor::recommender
