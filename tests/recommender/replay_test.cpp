#include "recommender/replay.h"

#include <gtest/gtest.h>

#include "recommender/tailored_strategy.h"

namespace tailor::recommender {
namespace {

constexpr double kGiB = 1024.0 * 1024 * 1024;

ContainerSeries flat_series(int windows, double cpu, double mem, double cpu_limit,
                            double mem_limit) {
  ContainerSeries s;
  s.container = "c";
  s.window = 300;
  s.has_limits = true;
  for (int i = 0; i < windows; ++i) {
    s.windows.push_back({i * 300, cpu, cpu, cpu, mem, mem, cpu_limit, mem_limit});
  }
  return s;
}

TEST(Replay, AsRunScoresOnlyAfterWarmUpWithMinimums) {
  // Two days; limits below the minimum are floored (25 m, 250 MiB).
  auto s = flat_series(576, 0.01, 100 * kMiB, 0.001, 1);
  ContainerScore c = replay_as_run(s, {});
  EXPECT_EQ(c.scored_windows, 288);
  EXPECT_NEAR(c.days, 1.0, 1e-12);
  EXPECT_NEAR(c.cpu_slack / c.cpu_request, 1 - 0.01 / 0.025, 1e-9);
  EXPECT_NEAR(c.mem_slack / c.mem_request, 1 - 100.0 / 250, 1e-9);
  EXPECT_EQ(c.ooms, 0);
}

TEST(Replay, CountsOomWindowsAgainstAppliedLimit) {
  auto s = flat_series(576, 0.5, 2 * kGiB, 1, kGiB);  // runs above its 1 GiB limit
  ContainerScore as_run = replay_as_run(s, {});
  EXPECT_EQ(as_run.ooms, 288);
  // VPA learns from the OOM bumps and stops the OOMs within the warm-up day.
  ContainerScore vpa = replay_strategy(s, *make_vpa_strategy(), {});
  EXPECT_EQ(vpa.ooms, 0);
}

// VPA's quick-OOM update in replay: a kill less than 10 min into the container's run (since
// the pod's start, its last change or its last restart after a kill) applies the bumped target
// at the window's end, although the young pod's request is inside its wide bounds; a kill after
// a longer run does not, and the container's restart after it starts a new run.
TEST(Replay, VpaQuickOomAppliesTheTargetAtOnce) {
  auto quick = flat_series(12, 0.5, 1.5 * kGiB, 1, kGiB);  // killed in the first window
  std::vector<TimelinePoint> t;
  ContainerScore c = replay_strategy(quick, *make_vpa_strategy(), {.warm_up = 0}, &t);
  ASSERT_EQ(t.size(), 12u);
  EXPECT_EQ(t[0].memory_request, kGiB);
  EXPECT_GT(t[1].memory_request, 1.5 * kGiB);
  EXPECT_EQ(c.ooms, 1);
  EXPECT_EQ(c.resizes, 1);

  auto late = flat_series(12, 0.5, 0.5 * kGiB, 1, kGiB);
  for (int i = 3; i < 12; ++i) late.windows[i].max_mem = 1.1 * kGiB;  // killed 15 min in
  t.clear();
  c = replay_strategy(late, *make_vpa_strategy(), {.warm_up = 0}, &t);
  ASSERT_EQ(t.size(), 12u);
  EXPECT_EQ(t[4].memory_request, kGiB);        // 15 min into the run: not quick
  EXPECT_GT(t[5].memory_request, 1.1 * kGiB);  // 5 min into the restarted run: quick
  EXPECT_EQ(c.ooms, 2);
  EXPECT_EQ(c.resizes, 1);
}

TEST(Replay, ZeroMemoryIsAMissingSample) {
  auto s = flat_series(576, 0.5, kGiB, 1, 2 * kGiB);
  for (auto& w : s.windows) w.max_mem = 0;
  ContainerScore c = replay_as_run(s, {});
  EXPECT_EQ(c.ooms, 0);
  EXPECT_EQ(c.mem_request, 0);  // not scored for memory
  EXPECT_GT(c.cpu_request, 0);
}

// Counts the requests a strategy sees at each window.
class RecordingStrategy final : public Strategy {
 public:
  explicit RecordingStrategy(std::vector<std::pair<Seconds, Resources>>* log) : log_(log) {}
  void observe(const UsageSample& s, const Resources& request) override {
    log_->push_back({s.start, request});
  }
  void on_oom(Seconds, double, double) override {}
  Recommendation recommend(Seconds) override {
    Recommendation r;
    r.target = {2.0, 3 * kGiB};
    return r;
  }
  std::optional<Resources> decide(const Recommendation&, const Resources&, Seconds, Seconds,
                                  const PodUsage&) const override {
    return std::nullopt;  // never resize: only a new pod changes requests
  }
  std::size_t state_bytes() const override { return 0; }

 private:
  std::vector<std::pair<Seconds, Resources>>* log_;
};

class RecordingFactory final : public StrategyFactory {
 public:
  std::string name() const override { return "rec"; }
  std::string update_rule() const override { return "never"; }
  std::unique_ptr<Strategy> create() const override {
    return std::make_unique<RecordingStrategy>(&log);
  }
  mutable std::vector<std::pair<Seconds, Resources>> log;
};

TEST(Replay, GapLongerThanAnHourStartsANewPodAtTheTarget) {
  auto s = flat_series(4, 0.5, kGiB, 1, 2 * kGiB);
  s.windows[2].start = s.windows[1].start + 300 + 3600;  // exactly one hour: same pod
  s.windows[3].start = s.windows[2].start + 300 + 3601;  // longer: new pod
  RecordingFactory f;
  ContainerScore c = replay_strategy(s, f, {});
  ASSERT_EQ(f.log.size(), 4u);
  EXPECT_EQ(f.log[2].second, (Resources{1, 2 * kGiB}));
  EXPECT_EQ(f.log[3].second, (Resources{2.0, 3 * kGiB}));
  EXPECT_EQ(c.resizes, 0);
}

TEST(Replay, TableAveragesContainersAndCostIsRelativeToAsRun) {
  std::vector<ContainerSeries> series = {flat_series(600, 0.5, kGiB, 1, 2 * kGiB),
                                         flat_series(600, 1.0, 2 * kGiB, 2, 4 * kGiB)};
  auto vpa = make_vpa_strategy();
  auto rows = replay_table(series, {vpa.get()});
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].strategy, "as-run");
  EXPECT_DOUBLE_EQ(rows[0].cost, 1.0);
  EXPECT_NEAR(rows[0].cpu_slack, 0.5, 1e-12);
  EXPECT_NEAR(rows[0].mem_slack, 0.5, 1e-12);
  EXPECT_EQ(rows[1].strategy, "vpa");
  EXPECT_EQ(rows[1].containers, 2);
  EXPECT_LT(rows[1].cost, 1.0);
  EXPECT_EQ(rows[1].ooms_per_day, 0.0);
}

TEST(Replay, WeightedSlackPoolsContainersByRequest) {
  ContainerScore big, small;
  big.scored_windows = small.scored_windows = 1;
  big.days = small.days = 1;
  big.cpu_request = 4, big.cpu_slack = 1;             // 25 %
  small.cpu_request = 0.025, small.cpu_slack = 0.02;  // 80 %
  big.mem_request = 8, big.mem_slack = 2;
  small.mem_request = 1, small.mem_slack = 0.5;
  const ScoreRow r = summarize("s", "", {big, small}, {big, small});
  EXPECT_NEAR(r.cpu_slack, (0.25 + 0.8) / 2, 1e-12);
  EXPECT_NEAR(r.cpu_slack_weighted, 1.02 / 4.025, 1e-12);
  EXPECT_NEAR(r.mem_slack, (0.25 + 0.5) / 2, 1e-12);
  EXPECT_NEAR(r.mem_slack_weighted, 2.5 / 9, 1e-12);
}

}  // namespace
}  // namespace tailor::recommender
