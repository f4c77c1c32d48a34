// PeakMemory: a week of daily peak maxima and the largest jump of a new record past the old.
#include "recommender/peak_memory.h"

#include <gtest/gtest.h>

#include <cmath>

namespace tailor::recommender {
namespace {

constexpr double kGiB = 1024.0 * 1024 * 1024;

TEST(PeakMemory, FloorIsTheLargestPeakOfTheKeptDays) {
  PeakMemory p;
  EXPECT_EQ(p.floor(0), 0);
  p.observe(1.0 * kGiB, 0);
  p.observe(2.0 * kGiB, kHour);  // day 0's peak
  p.observe(1.0 * kGiB, kDay);
  EXPECT_FLOAT_EQ(p.floor(kDay), 2.0 * kGiB);
  EXPECT_FLOAT_EQ(p.floor(kDay, 1), 1.0 * kGiB);  // today only
  // Day 0 is still one of the 7 days on day 6, and gone on day 7.
  EXPECT_FLOAT_EQ(p.floor(6 * kDay), 2.0 * kGiB);
  EXPECT_FLOAT_EQ(p.floor(7 * kDay), 1.0 * kGiB);
  EXPECT_EQ(p.floor(8 * kDay), 0);
}

TEST(PeakMemory, ASlotIsReusedAWeekLater) {
  PeakMemory p;
  p.observe(3.0 * kGiB, 0);
  p.observe(1.0 * kGiB, 7 * kDay + kHour);  // same slot as day 0, a week on
  EXPECT_FLOAT_EQ(p.floor(7 * kDay + kHour), 1.0 * kGiB);
  EXPECT_EQ(p.margin(7 * kDay + kHour), 0);
}

TEST(PeakMemory, SurpriseIsTheJumpPastThePreviousRecord) {
  PeakMemory p;
  p.observe(1.0 * kGiB, 0);
  p.observe(1.5 * kGiB, 300);
  EXPECT_NEAR(p.margin(300), 0.5, 1e-6);
  // A peak below the record is no surprise and does not lower the one seen.
  p.observe(1.2 * kGiB, kDay);
  EXPECT_NEAR(p.margin(kDay), 0.5, 1e-6);
  EXPECT_NEAR(p.margin(kDay, 1), 0.0, 1e-6);
}

TEST(PeakMemory, AGradualRiseIsASmallSurprise) {
  // Doubling over a day, 1 % per window: each record is 1 % past the one before.
  PeakMemory p;
  double m = kGiB;
  for (Seconds t = 0; t < kDay; t += 300, m *= 1.01) p.observe(m, t);
  EXPECT_NEAR(p.margin(kDay - 300), 0.01, 1e-4);
}

TEST(PeakMemory, MissingSamplesAreIgnored) {
  PeakMemory p;
  p.observe(kGiB, 0);
  for (double bad : {0.0, -1.0, double(NAN), double(INFINITY)}) p.observe(bad, 300);
  EXPECT_FLOAT_EQ(p.floor(300), kGiB);
  EXPECT_EQ(p.margin(300), 0);
}

TEST(PeakMemory, AssignRefusesValuesOutOfRange) {
  PeakMemory p;
  p.observe(kGiB, 0);
  const auto peaks = p.peaks(), surprises = p.surprises();
  const auto days = p.days();
  PeakMemory q;
  EXPECT_TRUE(q.assign(peaks, surprises, days));
  EXPECT_EQ(q.floor(0), p.floor(0));
  auto bad = peaks;
  bad[0] = -1;
  EXPECT_FALSE(q.assign(bad, surprises, days));
  bad[0] = NAN;
  EXPECT_FALSE(q.assign(bad, surprises, days));
  auto bad_surprise = surprises;
  bad_surprise[3] = INFINITY;
  EXPECT_FALSE(q.assign(peaks, bad_surprise, days));
  EXPECT_EQ(q.floor(0), p.floor(0));  // unchanged by the refusals
}

}  // namespace
}  // namespace tailor::recommender
