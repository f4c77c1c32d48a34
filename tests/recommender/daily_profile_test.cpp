#include "recommender/daily_profile.h"

#include <gtest/gtest.h>

#include <cmath>

#include "recommender/model_ensemble.h"

namespace tailor::recommender {
namespace {

TEST(DailyProfile, PredictsTheSameHourOfPastDays) {
  DailyProfile p;
  // Three days: 1 core all day except 3 cores from 22:00 to 23:00; day 2 peaks at 4.
  for (int day = 0; day < 3; ++day) {
    for (Seconds t = day * kDay; t < (day + 1) * kDay; t += 300) {
      const bool peak_hour = (t - day * kDay) / kHour == 22;
      p.observe(peak_hour ? (day == 2 ? 4.0 : 3.0) : 1.0, t);
    }
  }
  EXPECT_EQ(p.days(), 3);
  const Seconds day3 = 3 * kDay;
  EXPECT_DOUBLE_EQ(p.peak(day3 + 10 * kHour, day3 + 11 * kHour, 1), 1.0);
  EXPECT_DOUBLE_EQ(p.peak(day3 + 21 * kHour, day3 + 23 * kHour, 1), 4.0);  // spans hour 22
  EXPECT_DOUBLE_EQ(p.peak(day3 + 22 * kHour, day3 + 22 * kHour + 1, 2), 3.0);
  EXPECT_DOUBLE_EQ(p.peak(day3 + 22 * kHour, day3 + 22 * kHour + 1, 7), 3.0);  // lowest of 3
}

TEST(DailyProfile, ForgetsDaysOlderThanAWeekAndIgnoresBadSamples) {
  DailyProfile p;
  p.observe(5.0, 0);  // day 0, hour 0
  for (int day = 1; day <= 7; ++day) p.observe(1.0, day * kDay + 3600);
  EXPECT_EQ(p.days(), 7);
  EXPECT_DOUBLE_EQ(p.peak(8 * kDay, 8 * kDay + 1, 1), 0.0);  // day 0 was overwritten by day 7
  p.observe(NAN, 8 * kDay + 3600);
  p.observe(-1, 8 * kDay + 3600);
  p.observe(9.0, -5);
  p.observe(9.0, 0 * kDay + 3600);  // day 0: its row now holds day 7
  EXPECT_DOUBLE_EQ(p.peak(9 * kDay + 3600, 9 * kDay + 7200, 1), 1.0);
}

TEST(ModelEnsemble, ScoringCostCoversBurstsOnlyWhenTheyOutweighTheIdle) {
  // 12 millicores with bursts to 0.5 cores: rare bursts (0.25 % of windows) are cheaper to miss
  // than to cover all day, so the limit stays at what the 25 m minimum covers; frequent ones
  // (5 %) are covered.
  EnsembleConfig c{.half_lives = {kDay},
                   .percentiles = {0.5, 0.99, 1.0},
                   .margins = {0.0},
                   .shortfall_price = 3};
  auto run = [&](int every) {
    ModelEnsemble e(cpu_histogram_options(), c, 0.025);
    for (int i = 0; i < 5 * 288; ++i) e.observe(i % every == 0 ? 0.5 : 0.012, i * 300L, 300);
    return e.best_limit();
  };
  EXPECT_LE(run(400), 0.025);
  EXPECT_GE(run(20), 0.5);
}

TEST(ModelEnsemble, ProfileModelsWinOnADailyCycleOnlyAfterMinDays) {
  EnsembleConfig c{.half_lives = {kDay},
                   .percentiles = {0.95},
                   .margins = {0.1},
                   .tau = 0.95,
                   .change_penalty = 0.5,
                   .profile_ranks = {1},
                   .profile_margins = {0.1},
                   .profile_min_days = 3};
  ModelEnsemble e(cpu_histogram_options(), c);
  auto usage = [](Seconds t) { return (t % kDay) / kHour < 6 ? 2.0 : 0.5; };
  for (Seconds t = 0; t < 2 * kDay; t += 300) e.observe(usage(t), t, 300);
  EXPECT_FALSE(e.best_is_profile());  // two days on record
  for (Seconds t = 2 * kDay; t < 6 * kDay + 12 * kHour; t += 300) e.observe(usage(t), t, 300);
  EXPECT_TRUE(e.best_is_profile());
  EXPECT_LT(e.best_limit(), 1.0);  // midday: the night peak is not needed
}

TEST(ModelEnsemble, RejectsBadProfileRanks) {
  EnsembleConfig c{.half_lives = {kDay},
                   .percentiles = {0.95},
                   .margins = {0.1},
                   .profile_ranks = {8},
                   .profile_margins = {0.1}};
  EXPECT_THROW(ModelEnsemble(cpu_histogram_options(), c), std::invalid_argument);
}

}  // namespace
}  // namespace tailor::recommender
