// The default strategy's CPU side on the load shapes of the corpus (issue 14, "CPU below VPA's
// curve"): each test replays one shape the way `tailor replay` does and checks where the CPU
// request stood against every window's usage.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <vector>

#include "recommender/cpu_rule.h"
#include "recommender/replay.h"
#include "recommender/tailored_strategy.h"

namespace tailor::recommender {
namespace {

constexpr double kGiB = 1024.0 * 1024 * 1024;
constexpr Seconds kWindow = 300;
constexpr int kPerDay = kDay / kWindow;
constexpr int kPerHour = kHour / kWindow;

// A limit-less series of 5-minute windows: `cpu` is each window's mean, `p95` its 95th
// percentile and maximum as a multiple of the mean, `memory` its peak.
ContainerSeries shape(int days, const std::function<double(int)>& cpu,
                      const std::function<double(int)>& p95,
                      const std::function<double(int)>& memory) {
  ContainerSeries s;
  s.container = "synthetic";
  s.window = kWindow;
  for (int i = 0; i < days * kPerDay; ++i) {
    const double c = cpu(i), peak = c * p95(i), m = memory(i);
    s.windows.push_back({i * kWindow, c, peak, peak, m, m, 0, 0});
  }
  return s;
}

// At 1 GiB; `cpu` is each window's mean and p95.
ContainerSeries cpu_shape(int days, const std::function<double(int)>& cpu) {
  return shape(
      days, cpu, [](int) { return 1.0; }, [](int) { return kGiB; });
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

// A daily cycle of +-`amplitude` around 1 with its peak at 14:00, as the corpus's families have.
double daily(int i, double amplitude) {
  const double hour = double(i % kPerDay) / kPerHour;
  return 1 + amplitude * std::cos(2 * M_PI * (hour - 14) / 24);
}

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

// The weekly family: a weekday cycle of 0.2-0.8 cores, weekends at 40 % of it. The level
// forgets in 12 h, so the weekend does cut the request (VPA's day-long half-life keeps more of
// the weekdays). What serves Monday's ramp is the in-place raise: no window runs more than the
// burst threshold over its request, and the weekdays are covered again from Wednesday.
TEST(CpuShapes, AfterAWeekendMondaysRampIsRaisedInPlaceAndCoveredFromWednesday) {
  const CpuRule rule;
  const auto s = cpu_shape(21, [](int i) {
    const bool weekend = (i / kPerDay) % 7 >= 5;
    return 0.5 * daily(i, 0.6) * (weekend ? 0.4 : 1.0);
  });
  const Replayed r = replay(s, *make_default_strategy());
  for (int monday : {7, 14}) {
    const int start = monday * kPerDay;
    const double friday = r.t[start - 3 * kPerDay + 14 * kPerHour].cpu_request;
    EXPECT_LT(r.t[start - 1].cpu_request, 0.6 * friday) << "day " << monday << ": not cut";
    for (int i = start; i < start + kPerDay; ++i) {
      // A window of a gradual ramp crosses the threshold by at most its own step (< 2 %).
      ASSERT_LE(r.t[i].cpu_usage, r.t[i].cpu_request * (1 + rule.burst_threshold) * 1.02)
          << "day " << monday << ", window " << i - start;
    }
    for (int i = start + 2 * kPerDay; i < start + 5 * kPerDay; ++i) {
      ASSERT_GE(r.t[i].cpu_request, r.t[i].cpu_usage)
          << "day " << i / kPerDay << ", window " << i % kPerDay;
    }
  }
  EXPECT_LE(r.score.resizes / r.score.days, 2);
}

// The growth family: a +-40 % daily cycle whose traffic grows to 3x over two weeks, memory to
// 1.6x. Memory leads usage in every window, CPU is never more than 10 % under a window's load,
// at about one resize a day.
TEST(CpuShapes, GrowthIsFollowedAheadOfUsageWithAboutOneResizeADay) {
  const int days = 14, n = days * kPerDay;
  const auto s = shape(
      days, [&](int i) { return 0.5 * daily(i, 0.4) * (1 + 2.0 * i / n); }, [](int) { return 1.0; },
      [&](int i) { return kGiB * (1 + 0.6 * i / n); });
  const Replayed r = replay(s, *make_default_strategy());
  for (int i = kPerDay; i < n; ++i) {
    ASSERT_GE(r.t[i].memory_request, 1.03 * r.t[i].memory_usage) << "window " << i;
    ASSERT_LE(r.t[i].cpu_usage, 1.1 * r.t[i].cpu_request) << "window " << i;
  }
  EXPECT_EQ(r.score.ooms, 0);
  EXPECT_LT(shortfall(r.score), 0.005);
  EXPECT_LE(r.score.resizes / r.score.days, 1.5);
}

// The gaps family: the pod is away for 10 hours from day 3 10:00 (scaled to zero, a drained
// node), and the new pod starts with two windows at twice the load. It starts at the level the
// model kept over the gap; its first window is throttled, its second covered, and the raise is
// given back after the hold.
TEST(CpuShapes, APodReturningAfterAGapIsCoveredFromItsSecondWindow) {
  const CpuRule rule;
  const int from = 3 * kPerDay + 10 * kPerHour, back = from + 10 * kPerHour;
  auto s = cpu_shape(
      6, [&](int i) { return 0.5 * daily(i, 0.3) * (i >= back && i < back + 2 ? 2 : 1); });
  s.windows.erase(s.windows.begin() + from, s.windows.begin() + back);
  const Replayed r = replay(s, *make_default_strategy());
  const int at = from;  // the return's point: absent windows have none
  ASSERT_EQ(r.t[at].time, back * kWindow);
  const double before = r.t[at - 1].cpu_request;
  EXPECT_GE(r.t[at].cpu_request, 0.95 * before) << "the level was forgotten over the gap";
  EXPECT_LT(r.t[at].cpu_request, r.t[at].cpu_usage);  // the spike's first window
  EXPECT_GE(r.t[at + 1].cpu_request, r.t[at + 1].cpu_usage);
  const int hold = int(rule.burst_hold / kWindow);
  EXPECT_LT(r.t[at + 1 + hold + 1].cpu_request, 1.2 * before) << "not given back";
  EXPECT_EQ(r.score.ooms, 0);
}

// The noisy family: a 0.5-core service, and once a day (at 06:00, 10:00, 14:00 or 18:00) a
// noisy neighbour for 3 hours: 1.8x the CPU for the same work, windows ragged (p95 2.4x the
// mean, 1.2x otherwise). The episode is followed from its second window at its mean + 20 %;
// the level (12 h half-life) takes the episode in, so it is given back when the level falls,
// within 12 hours, not after the 30-minute hold.
bool noisy(int i) {
  const int day = i / kPerDay, at = i % kPerDay - (6 + day % 4 * 4) * kPerHour;
  return day >= 1 && at >= 0 && at < 3 * kPerHour;
}

TEST(CpuShapes, ANoisyNeighbourEpisodeIsFollowedFromItsSecondWindowAndGivenBackWithinHours) {
  const auto s = shape(
      8, [](int i) { return noisy(i) ? 0.9 : 0.5; }, [](int i) { return noisy(i) ? 2.4 : 1.2; },
      [](int) { return kGiB; });
  const Replayed r = replay(s, *make_default_strategy());
  const double quiet = r.t[kPerDay - 1].cpu_request;  // 0.5 + 20 %
  for (int day = 1; day < 7; ++day) {
    const int start = day * kPerDay + (6 + day % 4 * 4) * kPerHour, end = start + 3 * kPerHour;
    EXPECT_LT(r.t[start].cpu_request, 0.9) << "day " << day << ": not foreseen";
    for (int i = start + 1; i < end; ++i) {
      ASSERT_GE(r.t[i].cpu_request, 1.2 * 0.9 * 0.999) << "day " << day << ", window " << i - start;
    }
    int given_back = end;
    while (given_back < end + 12 * kPerHour && r.t[given_back].cpu_request > 1.05 * quiet) {
      ++given_back;
    }
    EXPECT_LT(given_back, end + 12 * kPerHour) << "day " << day << ": kept";
  }
  const Replayed vpa = replay(s, *make_vpa_strategy());
  EXPECT_LT(shortfall(r.score), shortfall(vpa.score) - 0.03);
  EXPECT_LE(r.score.resizes / r.score.days, 2.5);
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
