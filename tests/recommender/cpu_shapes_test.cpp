// The default strategy's CPU side on the load shapes of the corpus (issue 14, "CPU below VPA's
// curve"): each test replays one shape the way `tailor replay` does and checks where the CPU
// request stood against every window's usage.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <vector>

#include "recommender/replay.h"
#include "recommender/tailored_strategy.h"

namespace tailor::recommender {
namespace {

constexpr double kGiB = 1024.0 * 1024 * 1024;
constexpr Seconds kWindow = 300;
constexpr int kPerDay = kDay / kWindow;
constexpr int kPerHour = kHour / kWindow;

// A limit-less series of 5-minute windows at 1 GiB; `cpu` is each window's mean and p95.
ContainerSeries cpu_shape(int days, const std::function<double(int)>& cpu) {
  ContainerSeries s;
  s.container = "synthetic";
  s.window = kWindow;
  for (int i = 0; i < days * kPerDay; ++i) {
    const double c = cpu(i);
    s.windows.push_back({i * kWindow, c, c, c, kGiB, kGiB, 0, 0});
  }
  return s;
}

struct Replayed {
  ContainerScore score;
  std::vector<TimelinePoint> t;
};

Replayed replay(const ContainerSeries& s, const StrategyFactory& f) {
  Replayed r;
  r.score = replay_strategy(s, f, {}, &r.t);
  return r;
}

double slack(const ContainerScore& c) { return c.cpu_slack / c.cpu_request; }
double shortfall(const ContainerScore& c) { return c.cpu_short / c.cpu_p95; }

TEST(CpuShapes, AStepUpIsFollowedWithinOneWindowAndKept) {
  const int step = 3 * kPerDay + 7;
  const auto s = cpu_shape(6, [&](int i) { return i < step ? 0.5 : 1.5; });
  const Replayed r = replay(s, *make_default_strategy());
  EXPECT_LT(r.t[step].cpu_request, 1.0);  // sized to the old level until then
  // The first window at the new level is throttled; from the next one on the request covers it,
  // and it is not given back while the load stays there.
  for (int i = step + 1; i < int(r.t.size()); ++i) {
    ASSERT_GE(r.t[i].cpu_request, 1.5) << "window " << i - step << " after the step";
  }
  const Replayed vpa = replay(s, *make_vpa_strategy());
  EXPECT_LT(vpa.t[step + kPerHour].cpu_request, 1.5) << "VPA is slower to follow";
}

TEST(CpuShapes, AStepDownIsFollowedOnceTheLevelHasMovedNotInTheFirstDay) {
  const int step = 3 * kPerDay;
  const auto s = cpu_shape(9, [&](int i) { return i < step ? 1.0 : 0.4; });
  const Replayed r = replay(s, *make_default_strategy());
  const double before = r.t[step].cpu_request;
  EXPECT_GE(before, 1.0);
  // A drop that lasts less than a day is a trough of the daily cycle, not a new level...
  for (int i = step; i < step + kPerDay; ++i) {
    ASSERT_EQ(r.t[i].cpu_request, before) << "window " << i - step << " after the step";
  }
  // ...and the level (a 12 h half-life) has moved within four days.
  EXPECT_LT(r.t[step + 4 * kPerDay].cpu_request, 0.6);
  EXPECT_GE(r.t[step + 4 * kPerDay].cpu_request, 0.4);
}

// A daily job: 30 minutes at 3 cores from 02:00 on a 0.4-core service.
bool in_run(int i) { return i % kPerDay >= 2 * kPerHour && i % kPerDay < 2 * kPerHour + 6; }

TEST(CpuShapes, ABatchBurstIsCoveredFromItsSecondWindowAndGivenBackAfter) {
  const auto s = cpu_shape(6, [](int i) { return in_run(i) ? 3.0 : 0.4; });
  const Replayed r = replay(s, *make_default_strategy());
  for (int day = 1; day < 6; ++day) {
    const int start = day * kPerDay + 2 * kPerHour;
    EXPECT_LT(r.t[start].cpu_request, 3.0) << "day " << day << ": not raised ahead";
    for (int i = start + 1; i < start + 6; ++i) {
      ASSERT_GE(r.t[i].cpu_request, 3.0) << "day " << day << ", window " << i - start;
    }
    // Given back within the 30-minute hold and one window after the run.
    EXPECT_LT(r.t[start + 6 + kPerHour / 2 + 1].cpu_request, 1.0) << "day " << day;
  }
  // Two resizes per run (up and back); VPA holds one level all day and is throttled every run.
  EXPECT_LE(r.score.resizes / r.score.days, 2.5);
  const Replayed vpa = replay(s, *make_vpa_strategy());
  EXPECT_LT(shortfall(r.score), shortfall(vpa.score) / 3);
  EXPECT_LT(slack(r.score), slack(vpa.score) + 0.05);
}

TEST(CpuShapes, ASpikeIsFollowedAndGivenBackWithinTheHold) {
  // One 5-minute spike to 4 cores a day on a 0.5-core service.
  const auto s = cpu_shape(6, [](int i) { return i % kPerDay == kPerDay / 2 ? 4.0 : 0.5; });
  const Replayed r = replay(s, *make_default_strategy());
  for (int day = 1; day < 6; ++day) {
    const int spike = day * kPerDay + kPerDay / 2;
    EXPECT_GE(r.t[spike + 1].cpu_request, 4.0);  // the window after it: a spike may be a burst
    for (int i = spike + 1 + kPerHour / 2 + 1; i < (day + 1) * kPerDay; ++i) {
      ASSERT_LT(r.t[i].cpu_request, 1.0) << "day " << day << ", window " << i - spike;
    }
  }
}

TEST(CpuShapes, ADailyCycleIsCoveredByTheLevelWithoutResizes) {
  // +-80 % around 0.5 cores, peak at 18:00: the level (p85 + 15 % over a 12 h half-life) covers
  // the peak.
  const auto s = cpu_shape(8, [](int i) { return 0.5 + 0.4 * std::sin(2 * M_PI * i / kPerDay); });
  const Replayed r = replay(s, *make_default_strategy());
  EXPECT_LE(r.score.resizes / r.score.days, 0.5);
  EXPECT_LT(shortfall(r.score), 0.02);
}

TEST(CpuShapes, ASmallContainerIsSizedAtTheResolutionOfAMillicoreNotOfVpasFirstBuckets) {
  // A sidecar steady at 21 m: its level is 21 m + 15 % = 24 m, under the 25 m minimum. VPA's
  // histogram reports the end of its [20.5 m, 31.5 m) bucket, and its row holds 35 m, 40 % over
  // the minimum; the default's 1 m buckets are 10 % wide there.
  const auto s = cpu_shape(4, [](int) { return 0.021; });
  const Replayed r = replay(s, *make_default_strategy());
  const Replayed vpa = replay(s, *make_vpa_strategy());
  for (int i = kPerDay; i < 4 * kPerDay; ++i) {
    ASSERT_DOUBLE_EQ(r.t[i].cpu_request, 0.025) << "window " << i;
  }
  EXPECT_GE(vpa.t[4 * kPerDay - 1].cpu_request, 0.035);
}

TEST(CpuShapes, WithProfileModelsARecurringDailyPeakIsRaisedAheadFromTheFourthDay) {
  // Off by default (RESULTS.md: 5 resizes a day on the corpus); the option raises the request
  // for the hour ahead of a peak seen at that hour on past days.
  TailoredConfig c;
  c.cpu.profile_ranks = {2};
  const auto s = cpu_shape(7, [](int i) { return in_run(i) ? 3.0 : 0.4; });
  const Replayed r = replay(s, *make_tailored_strategy(c));
  for (int day = 4; day < 7; ++day) {
    const int start = day * kPerDay + 2 * kPerHour;
    EXPECT_GE(r.t[start].cpu_request, 3.0) << "day " << day << ": raised before the run";
  }
}

}  // namespace
}  // namespace tailor::recommender
