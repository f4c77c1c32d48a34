// The default strategy's day of hourly target maxima, stored as 16-bit codes rounded up.
#include "recommender/target_history.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>

namespace tailor::recommender {
namespace {

// 2^(1/2048) = 1.000338508..., and a hair for the rounding of exp2 and log2.
constexpr double kStep = 1.00033851;

TEST(TargetHistory, CodesRoundUpByLessThanOneStep) {
  std::mt19937 rng(1);
  std::uniform_real_distribution<double> exponent(-9, 12);
  for (int i = 0; i < 100000; ++i) {
    const double cores = std::exp2(exponent(rng));
    const double back = TargetHistory::decode_cores(TargetHistory::encode_cores(cores));
    ASSERT_GE(back, cores);
    ASSERT_LE(back, cores * kStep);
    const double bytes = std::exp2(exponent(rng) + 30);
    const double bytes_back = TargetHistory::decode_bytes(TargetHistory::encode_bytes(bytes));
    ASSERT_GE(bytes_back, bytes);
    ASSERT_LE(bytes_back, bytes * kStep);
  }
  EXPECT_EQ(TargetHistory::encode_cores(0), 0);
  EXPECT_EQ(TargetHistory::decode_cores(0), 0);
  EXPECT_EQ(TargetHistory::encode_bytes(1e30), 65535);  // saturates
}

// The rule it replaces: exact maxima per hour, the last `within` hours.
TEST(TargetHistory, RecentMaxIsTheExactRuleRoundedUp) {
  TargetHistory history;
  std::map<std::int64_t, Resources> exact;
  std::mt19937 rng(2);
  std::uniform_real_distribution<double> cpu(0.05, 4), memory(1e8, 8e9);
  std::uniform_int_distribution<int> step(60, 3 * kHour);
  for (Seconds t = 0; t < 6 * kDay; t += step(rng)) {
    const Resources target{cpu(rng), memory(rng)};
    history.remember(target, t);
    Resources& slot = exact[t / kHour];
    slot = {std::max(slot.cpu_cores, target.cpu_cores),
            std::max(slot.memory_bytes, target.memory_bytes)};
    for (Seconds within : {kHour, 6 * kHour, kDay}) {
      Resources want;
      for (const auto& [hour, r] : exact) {
        if ((t / kHour - hour) * kHour >= within) continue;
        want = {std::max(want.cpu_cores, r.cpu_cores), std::max(want.memory_bytes, r.memory_bytes)};
      }
      const Resources got = history.recent_max(t, within);
      ASSERT_GE(got.cpu_cores, want.cpu_cores);
      ASSERT_LE(got.cpu_cores, want.cpu_cores * kStep);
      ASSERT_GE(got.memory_bytes, want.memory_bytes);
      ASSERT_LE(got.memory_bytes, want.memory_bytes * kStep);
    }
  }
}

TEST(TargetHistory, EmptyAndLongGaps) {
  TargetHistory history;
  EXPECT_EQ(history.recent_max(kDay, kDay), Resources{});
  history.remember({2, 4e9}, kHour);
  EXPECT_GE(history.recent_max(kHour, kDay).cpu_cores, 2);
  EXPECT_EQ(history.recent_max(3 * kDay, kDay), Resources{});  // a day later: forgotten
  history.remember({1, 1e9}, 3 * kDay);
  EXPECT_LT(history.recent_max(3 * kDay, kDay).cpu_cores, 1.001);
}

}  // namespace
}  // namespace tailor::recommender
