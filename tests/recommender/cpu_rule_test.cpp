#include "recommender/cpu_rule.h"

#include <gtest/gtest.h>

namespace tailor::recommender {
namespace {

const CpuRule kRule;  // band +-15 %, burst at +30 % to the window's mean + 20 %

TEST(CpuRule, StaysInsideTheBand) {
  EXPECT_EQ(next_cpu_request(kRule, 1.0, 1.14, 0.9, false), 1.0);
  EXPECT_EQ(next_cpu_request(kRule, 1.0, 0.86, 0.5, false), 1.0);
  EXPECT_EQ(next_cpu_request(kRule, 1.0, 1.0, -1, false), 1.0);
}

TEST(CpuRule, FollowsTheLevelOutsideTheBand) {
  EXPECT_EQ(next_cpu_request(kRule, 1.0, 1.2, 0.9, false), 1.2);
  EXPECT_EQ(next_cpu_request(kRule, 1.0, 0.8, 0.5, false), 0.8);
  EXPECT_EQ(next_cpu_request(kRule, 1.0, 0.8, -1, false), 0.8);  // no window seen yet
}

TEST(CpuRule, ABurstIsRaisedToAtOnceEvenWhenTheLevelIsLow) {
  EXPECT_DOUBLE_EQ(next_cpu_request(kRule, 1.0, 0.5, 2.0, false), 2.4);
  EXPECT_DOUBLE_EQ(next_cpu_request(kRule, 1.0, 0.5, 2.0, true), 2.4);  // also while holding
  // The level wins when it is higher than the burst needs.
  EXPECT_EQ(next_cpu_request(kRule, 1.0, 3.0, 2.0, false), 3.0);
}

TEST(CpuRule, AnOverrunWithinTheBurstThresholdIsLeftToTheLevel) {
  EXPECT_EQ(next_cpu_request(kRule, 1.0, 1.0, 1.29, false), 1.0);
}

TEST(CpuRule, NoDecreaseWhileARaiseHolds) {
  EXPECT_EQ(next_cpu_request(kRule, 2.4, 0.5, 0.4, true), 2.4);
  EXPECT_DOUBLE_EQ(next_cpu_request(kRule, 2.4, 0.5, 0.4, false), 0.5);
}

TEST(CpuRule, AGiveBackStopsAtWhatTheLastWindowNeeded) {
  // The burst is still on at 1.5 cores: down from 2.4 to 1.5 + 20 %, not to the level.
  EXPECT_DOUBLE_EQ(next_cpu_request(kRule, 2.4, 0.5, 1.5, false), 1.8);
  // ...and not at all when the last window needed nearly the whole request.
  EXPECT_EQ(next_cpu_request(kRule, 2.4, 0.5, 1.9, false), 2.4);
}

}  // namespace
}  // namespace tailor::recommender
