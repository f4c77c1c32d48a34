// The memory ensemble's lazy scoring (ModelEnsemble::observe): caught up after every sample it
// charges what the per-sample pinball scoring charges; caught up later it charges the same for
// the samples between, under the limits of the last catch-up.
#include "recommender/model_ensemble.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "recommender/tailored_strategy.h"

namespace tailor::recommender {
namespace {

constexpr double kGiB = 1024.0 * 1024 * 1024;

// The default strategy's memory ensemble (18 models over window peaks).
const EnsembleConfig& memory_config() {
  static const TailoredConfig config;
  return config.memory;
}

ModelEnsemble memory_ensemble() {
  return ModelEnsemble(memory_histogram_options(), memory_config(), 0, 4);
}

std::vector<double> costs(const ModelEnsemble& e) {
  std::vector<double> out;
  for (std::size_t m = 0; m < e.models(); ++m) out.push_back(e.cost(m));
  return out;
}

std::vector<double> limits(const ModelEnsemble& e) {
  std::vector<double> out;
  for (std::size_t m = 0; m < e.models(); ++m) out.push_back(e.limit(m));
  return out;
}

void expect_close(const std::vector<double>& a, const std::vector<double>& b, double relative) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t m = 0; m < a.size(); ++m) {
    EXPECT_NEAR(a[m], b[m], relative * std::max(std::fabs(a[m]), 1e-9)) << "model " << m;
  }
}

// Memory around 1 GiB with noise and a peak now and then (overruns of the lower limits).
double usage(std::mt19937& random, double level) {
  std::lognormal_distribution<double> noise(0, 0.05);
  return level * kGiB * noise(random) * (random() % 40 == 0 ? 1.3 : 1.0);
}

// Caught up after every sample (as replay recommends after every window), the ensemble charges
// each model what the per-sample scoring does: decay, then tau per unit of overrun and 1 - tau
// per unit of idle limit against the limit before the sample, then the change penalty, each in
// units of the usage level after the sample (computed here independently, in double).
TEST(ModelEnsembleLazyScoring, CaughtUpEverySampleChargesWhatPerSampleScoringCharges) {
  const EnsembleConfig& c = memory_config();
  ModelEnsemble e = memory_ensemble();
  std::mt19937 random(3);
  const Seconds step = 300;
  double level = 0;
  std::vector<double> reference;
  std::vector<double> before;
  for (Seconds t = 0; t < 3 * kDay; t += step) {
    const double u = usage(random, t < 2 * kDay ? 1.0 : 1.2);  // a step up on day 3
    if (t == 0) {
      level = u;
      e.observe(u, t, step);
      e.catch_up();
      reference.assign(e.models(), 0.0);
      before = limits(e);
      continue;
    }
    const double decay = std::exp2(-static_cast<double>(step) / c.cost_half_life);
    level = decay * level + (1 - decay) * u;
    const double weight = static_cast<double>(step) / ModelEnsemble::kCostUnit;
    e.observe(u, t, step);
    e.catch_up();
    const std::vector<double> after = limits(e);
    for (std::size_t m = 0; m < e.models(); ++m) {
      const double over = std::max(u - before[m], 0.0), idle = std::max(before[m] - u, 0.0);
      reference[m] = decay * reference[m] + weight * (c.tau * over + (1 - c.tau) * idle) / level +
                     c.change_penalty * std::fabs(after[m] - before[m]) / level;
    }
    before = after;
  }
  expect_close(costs(e), reference, 1e-4);  // the ensemble keeps costs in float
}

// With the limits standing still over an hour, an ensemble caught up only at its end charges
// what one caught up after every sample charges, up to the level the pending sums are divided by
// (the level at the catch-up, not each sample's: it moves < 1 % in an hour here). Samples above
// the lowest limit (overruns) are scored as they come, the others from the two sums.
TEST(ModelEnsembleLazyScoring, CatchingUpLaterChargesTheSameUnderTheSameLimits) {
  ModelEnsemble every = memory_ensemble(), later = memory_ensemble();
  std::mt19937 random(5);
  const Seconds step = 60;  // one sample weighs < 1 % of the 6-hour row: the limits stand still
  for (Seconds t = 0; t < 2 * kDay; t += step) {
    const double u = usage(random, 1.0);
    every.observe(u, t, step);
    every.catch_up();
    later.observe(u, t, step);
    later.catch_up();
  }
  ASSERT_EQ(costs(every), costs(later));
  const std::vector<double> standing = limits(every);
  int overruns = 0;
  for (Seconds t = 2 * kDay; t < 2 * kDay + kHour; t += step) {
    const double u = usage(random, 1.0);
    overruns += u > *std::min_element(standing.begin(), standing.end());
    every.observe(u, t, step);
    every.catch_up();
    ASSERT_EQ(limits(every), standing) << "at " << t;  // the premise: the limits stand still
    later.observe(u, t, step);
  }
  EXPECT_GT(overruns, 0);  // both paths of the lazy scoring ran
  EXPECT_EQ(limits(later), standing);
  const std::vector<double> stale = costs(later);
  later.catch_up();
  EXPECT_NE(costs(later), stale);
  expect_close(costs(later), costs(every), 2e-3);
}

// A steady level (usage at the level): the pending sums are exactly the per-sample charges.
TEST(ModelEnsembleLazyScoring, AtASteadyLevelCatchingUpLaterIsExact) {
  ModelEnsemble every = memory_ensemble(), later = memory_ensemble();
  const double u = 1.5 * kGiB;
  for (Seconds t = 0; t < kDay + kHour; t += 60) {
    every.observe(u, t, 60);
    every.catch_up();
    later.observe(u, t, 60);
    if (t < kDay) later.catch_up();
  }
  later.catch_up();
  expect_close(costs(later), costs(every), 1e-6);
}

// Without a recommendation the period closes at the first sample of a new hour: the costs and
// limits are brought up to date then, not sample by sample.
TEST(ModelEnsembleLazyScoring, TheFirstSampleOfANewHourClosesThePeriod) {
  ModelEnsemble e = memory_ensemble();
  std::mt19937 random(7);
  for (Seconds t = 0; t <= kDay; t += 60) e.observe(usage(random, 1.0), t, 60);
  const std::vector<double> at_close = costs(e);  // the sample at kDay closed the hour before
  for (Seconds t = kDay + 60; t < kDay + kHour; t += 60) {
    e.observe(usage(random, 1.0), t, 60);
    EXPECT_EQ(costs(e), at_close) << "at " << t;
  }
  const std::vector<double> before_close = costs(e);
  e.observe(usage(random, 1.0), kDay + kHour, 60);
  EXPECT_NE(costs(e), before_close);
}

// The lazy state (pending sums, carried weights) round-trips through a checkpoint mid-hour: the
// restored ensemble catches up to the same costs and limits.
TEST(ModelEnsembleLazyScoring, ACheckpointMidPeriodContinuesExactly) {
  TailoredStrategy original(TailoredConfig{});
  std::mt19937 random(9);
  for (Seconds t = 0; t < kDay + 30 * 60; t += 60) {
    original.observe({t, 60, 0.5, usage(random, 1.0)}, {1, 2 * kGiB});
  }
  TailoredStrategy restored(TailoredConfig{});
  restored.restore(original.save());
  for (Seconds t = kDay + 30 * 60; t < kDay + 2 * kHour; t += 60) {
    const double u = usage(random, 1.0);
    original.observe({t, 60, 0.5, u}, {1, 2 * kGiB});
    restored.observe({t, 60, 0.5, u}, {1, 2 * kGiB});
  }
  EXPECT_EQ(original.save(), restored.save());
  EXPECT_EQ(original.recommend(kDay + 2 * kHour).target,
            restored.recommend(kDay + 2 * kHour).target);
}

}  // namespace
}  // namespace tailor::recommender
