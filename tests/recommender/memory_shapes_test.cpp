// The default strategy's memory side on the workload shapes that OOM-kill containers (issue 14,
// "Memory that does not OOM"): each test replays one shape the way `tailor replay` does and
// checks where the memory request stood against every window's peak.
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

// A limit-less series of 5-minute windows at 0.5 cores; memory is the window peak.
ContainerSeries memory_shape(int days, const std::function<double(int)>& mem) {
  ContainerSeries s;
  s.container = "synthetic";
  s.window = kWindow;
  for (int i = 0; i < days * kPerDay; ++i) {
    const double m = mem(i);
    s.windows.push_back({i * kWindow, 0.5, 0.5, 0.5, m, m, 0, 0});
  }
  return s;
}

std::vector<TimelinePoint> replay(const ContainerSeries& s, const TailoredConfig& config = {}) {
  std::vector<TimelinePoint> t;
  replay_strategy(s, *make_tailored_strategy(config), {}, &t);
  return t;
}

// Windows (indices) whose peak was above the memory request they ran with: OOM kills.
std::vector<int> ooms(const std::vector<TimelinePoint>& t) {
  std::vector<int> out;
  for (int i = 0; i < int(t.size()); ++i) {
    if (t[i].memory_usage > t[i].memory_request) out.push_back(i);
  }
  return out;
}

// A daily batch run (a nightly report): 1 GiB steady, and at 02:00 a 30-minute run filling
// memory by 1 GiB, each run up to 10 % larger or smaller than the one before (the corpus's
// batch family).
TEST(MemoryShapes, BatchBurstIsCoveredFromItsSecondOccurrence) {
  const double sizes[] = {1.0, 1.1, 0.9, 1.1, 1.0, 0.9, 1.1, 1.05};
  const int start = 2 * kHour / kWindow, length = 6;
  auto mem = [&](int i) {
    const int at = i % kPerDay - start;
    if (at < 0 || at >= length) return kGiB;
    return kGiB * (1 + sizes[i / kPerDay] * (at + 1) / length);
  };
  const auto s = memory_shape(8, mem);
  for (int kill : ooms(replay(s))) {
    EXPECT_LT(kill, kPerDay) << "killed in the run of day " << kill / kPerDay;
  }
  // The ensemble alone (percentiles of recent peaks) has forgotten a run a day later.
  TailoredConfig no_floor;
  no_floor.peak_days = 0;
  const std::vector<int> without = ooms(replay(s, no_floor));
  ASSERT_FALSE(without.empty());
  EXPECT_GE(without.back(), kPerDay);
}

// A leak of 1 % of the base per window (doubling in 8 hours), the process restarted every
// 12 hours: the request must lead usage in every window, never wait for the kill.
TEST(MemoryShapes, LeakIsRaisedAheadOfItsOom) {
  const int cycle = 12 * kHour / kWindow;
  auto leak = [&](int i) { return kGiB * (1 + 0.01 * (i % cycle)); };
  const auto t = replay(memory_shape(4, leak));
  EXPECT_TRUE(ooms(t).empty()) << ooms(t).size() << " kills, the first in window "
                               << ooms(t).front();
  // After the first cycle the request is at the leak's top before the leak gets there.
  for (int i = cycle; i < int(t.size()); ++i) {
    ASSERT_GE(t[i].memory_request, kGiB * (1 + 0.01 * (cycle - 1))) << "window " << i;
  }
}

// Memory steps from 1 to 2 GiB on day 3 (a new release holding more state). The first window
// of the new level cannot be foreseen; from the next window on it is covered.
TEST(MemoryShapes, StepUpIsFollowedWithinOneWindow) {
  const int step = 3 * kPerDay;
  const auto t = replay(memory_shape(6, [&](int i) { return i < step ? kGiB : 2 * kGiB; }));
  EXPECT_EQ(ooms(t), std::vector<int>{step});
  EXPECT_GE(t[step + 1].memory_request, 2 * kGiB);
}

// One OOM kill: a 1-window transient to 1.6 GiB on day 2 over a steady 1 GiB.
ContainerSeries one_kill(int days) {
  const int spike = 2 * kPerDay + 100;
  return memory_shape(days, [=](int i) { return i == spike ? 1.6 * kGiB : kGiB; });
}

TEST(MemoryShapes, AfterAnOomMemoryIsNotLoweredForTheHold) {
  // The OOM rule alone (no week of peaks): the bump stands for oom_hold, then the usual
  // day-long confidence gives it back.
  TailoredConfig rule_only;
  rule_only.peak_days = 0;
  const int kill = 2 * kPerDay + 100;
  const auto t = replay(one_kill(8), rule_only);
  ASSERT_EQ(ooms(t), std::vector<int>{kill});
  const double bumped = t[kill + 1].memory_request;
  EXPECT_GE(bumped, 1.6 * kGiB * rule_only.oom_bump_ratio);
  const int hold = int(rule_only.oom_hold / kWindow);
  for (int i = kill + 1; i <= kill + hold; ++i) {
    ASSERT_GE(t[i].memory_request, bumped)
        << "lowered " << (i - kill) * kWindow / kHour << " h after the kill";
  }
  const int given_back = kill + hold + int((rule_only.down_confidence + kDay) / kWindow);
  ASSERT_LT(given_back, int(t.size()));
  EXPECT_LT(t[given_back].memory_request, 1.3 * kGiB);
}

TEST(MemoryShapes, AKillsPeakIsKeptForTheWeekThenGivenBack) {
  // With the defaults the peak that killed stays the floor for peak_days days.
  const TailoredConfig defaults;
  const int kill = 2 * kPerDay + 100;
  const auto t = replay(one_kill(12));
  ASSERT_EQ(ooms(t), std::vector<int>{kill});
  const int kept_until = (kill / kPerDay + defaults.peak_days) * kPerDay;  // the day it expires
  for (int i = kill + 1; i < kept_until; ++i) {
    ASSERT_GE(t[i].memory_request, 1.6 * kGiB) << "window " << i;
  }
  // Slack is not kept forever: two days after the week the request is near the steady 1 GiB.
  EXPECT_LT(t[kept_until + 2 * kPerDay].memory_request, 1.3 * kGiB);
}

// The jvm family: a heap filling from 40 % of its 2 GiB ceiling (-Xmx) towards it (95 % in
// 36 h), each window's peak the heap just before a collection; a deploy every 4 days starts it
// again from 40 %. No window is killed, the first fill included (the fill is followed ahead, as a
// leak is), and once the heap has reached its ceiling the request keeps it through each restart
// while the heap refills.
TEST(MemoryShapes, AJvmHeapIsNotKilledWhileItFillsAndItsCeilingIsKeptThroughRestarts) {
  const int lifetime = 4 * kPerDay;
  const double tau = 12.0 * kHour / kWindow, ceiling = 2 * kGiB;
  auto heap = [&](int i) { return ceiling * (1 - 0.6 * std::exp(-(i % lifetime) / tau)); };
  const auto t = replay(memory_shape(14, heap));
  EXPECT_TRUE(ooms(t).empty()) << ooms(t).size() << " kills, the first in window "
                               << ooms(t).front();
  int filled = 0;
  while (heap(filled) < 0.95 * ceiling) ++filled;
  for (int i = filled; i < int(t.size()); ++i) {
    ASSERT_GE(t[i].memory_request, ceiling)
        << "window " << i << ", " << i % lifetime << " after a start";
  }
}

// A deploy every 2 days whose first 30 minutes overshoot memory by 60 %, settling back; the
// overshoot of every deploy after the first is covered, though memory sits at the steady level
// for two days in between.
TEST(MemoryShapes, StartupOvershootOfTheNextDeployIsCovered) {
  const int every = 2 * kPerDay;
  auto mem = [&](int i) { return kGiB * ((i % every) < 6 ? 1.6 : 1.0); };
  const auto s = memory_shape(10, mem);
  for (int kill : ooms(replay(s))) EXPECT_LT(kill, every) << "deploy " << kill / every << " killed";
  // The ensemble alone has given the overshoot back two days later.
  TailoredConfig no_floor;
  no_floor.peak_days = 0;
  const std::vector<int> without = ooms(replay(s, no_floor));
  ASSERT_FALSE(without.empty());
  EXPECT_GE(without.back(), every);
}

}  // namespace
}  // namespace tailor::recommender
