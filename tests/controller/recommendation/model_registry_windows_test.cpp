#include <gtest/gtest.h>

#include <limits>

#include "controller/recommendation/model_registry.h"

namespace tailor::controller::recommendation {
namespace {

using recommender::kMiB;
using recommender::kSamplePeriod;
using recommender::MeasuredWindow;

std::shared_ptr<const recommender::StrategyFactory> tailored() {
  return std::shared_ptr<const recommender::StrategyFactory>(recommender::make_default_strategy());
}

constexpr Resources kRequest{.cpu_cores = 1, .memory_bytes = 512 * kMiB};
constexpr Seconds kT0 = 1'800'000'000;  // a period boundary (divisible by 300)

// An agent's 15 s window starting `at` seconds.
MeasuredWindow agent(Seconds at, double cpu = 0.5) {
  return {.start_ms = at * 1000,
          .end_ms = (at + 15) * 1000,
          .cpu_mean_cores = cpu,
          .cpu_peak_cores = 2 * cpu,
          .memory_peak_bytes = 300 * kMiB};
}

long count(const ModelRegistry& r, const ContainerModelKey& k) {
  auto s = r.samples(k);
  return s ? s->count : 0;
}

TEST(ModelRegistryWindows, FoldsEachPodsWindowsIntoOneSamplePerPeriod) {
  ModelRegistry r(tailored());
  const ContainerModelKey k{"shop/web", "app"};
  for (Seconds t = kT0; t < kT0 + kSamplePeriod; t += 15) {
    r.observe_window(k, "shop/web-0/uid0", agent(t), kRequest);
    r.observe_window(k, "shop/web-1/uid1", agent(t + 7), kRequest);
  }
  // web-0's last window ended on the boundary; web-1's straddles it and leaves the next open.
  EXPECT_EQ(count(r, k), 2);
  EXPECT_EQ(r.samples(k)->first, kT0);
  EXPECT_EQ(r.samples(k)->last, kT0);
  EXPECT_TRUE(r.recommend(k, kT0 + kSamplePeriod).has_value());
  EXPECT_EQ(r.close_periods(kT0 + kSamplePeriod + 30), 1u);  // web-1's open period
  EXPECT_EQ(count(r, k), 3);
  EXPECT_EQ(r.samples(k)->last, kT0 + kSamplePeriod);
  EXPECT_EQ(r.close_periods(kT0 + 10 * kSamplePeriod), 0u);  // folds gone with their pods
}

TEST(ModelRegistryWindows, KeepsSourcesApartSoAHistoryMayFollowTheStream) {
  ModelRegistry r(tailored());
  const ContainerModelKey k{"shop/web", "app"};
  r.observe_window(k, "shop/web-0/uid0", agent(kT0 + 3600), kRequest);
  // The Prometheus history of the same pod, an hour older, arrives after the first live window.
  EXPECT_NO_THROW(r.observe_window(
      k, "shop/web-0/", {kT0 * 1000, (kT0 + 3600) * 1000, 0.4, 0.4, 280 * kMiB}, kRequest));
  EXPECT_EQ(count(r, k), 12);  // the history's 12 periods
  // Within one source, time order holds.
  EXPECT_THROW(r.observe_window(k, "shop/web-0/uid0", agent(kT0 + 3590), kRequest),
               recommender::UsageWindowError);
}

TEST(ModelRegistryWindows, RefusedWindowsChangeNothing) {
  ModelRegistry r(tailored());
  const ContainerModelKey k{"shop/web", "app"};
  MeasuredWindow empty = agent(kT0);
  empty.end_ms = empty.start_ms;
  EXPECT_THROW(r.observe_window(k, "p", empty, kRequest), recommender::UsageWindowError);
  EXPECT_EQ(r.size(), 0u);
  EXPECT_EQ(r.close_periods(kT0 + 10 * kSamplePeriod), 0u);  // no fold was left behind
  r.observe_window(k, "p", agent(kT0), kRequest);
  MeasuredWindow nan = agent(kT0 + 15);
  nan.cpu_mean_cores = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(r.observe_window(k, "p", nan, kRequest), recommender::UsageWindowError);
  r.observe_window(k, "p", agent(kT0 + 285, 1.5), kRequest);
  EXPECT_EQ(count(r, k), 1);
  // The period holds the two good windows only: mean (0.5 + 1.5) / 2 recommends near 1 core,
  // far above the 0.5 the first window alone would.
  EXPECT_GT(r.recommend(k, kT0 + kSamplePeriod)->target.cpu_cores, 0.9);
}

// A pass between a new pod's first windows (each pass sweeps idle models) keeps the model and
// its open period: it was seen, though no period is complete yet.
TEST(ModelRegistryWindows, AnIdleSweepKeepsAModelWhosePeriodIsOpen) {
  ModelRegistry r(tailored());
  const ContainerModelKey k{"shop/web", "app"};
  for (Seconds t = kT0 + 3; t + 15 < kT0 + kSamplePeriod; t += 15) {
    r.observe_window(k, "p", agent(t), kRequest);
    EXPECT_EQ(r.forget_idle(t + 15 - 8 * 24 * 3600), 0u) << t;  // the controller's 8-day TTL
  }
  EXPECT_EQ(count(r, k), 0);
  r.observe_window(k, "p", agent(kT0 + kSamplePeriod - 3), kRequest);
  EXPECT_EQ(count(r, k), 1);
  // Idle for longer than the TTL: gone, open period and all.
  EXPECT_EQ(r.forget_idle(kT0 + 10 * kSamplePeriod), 1u);
  EXPECT_EQ(r.close_periods(kT0 + 20 * kSamplePeriod), 0u);
}

TEST(ModelRegistryWindows, ForgettingAPolicyDropsItsOpenPeriods) {
  ModelRegistry r(tailored());
  const ContainerModelKey k{"shop/web", "app"};
  r.observe_window(k, "p", agent(kT0), kRequest);
  r.forget_policy("shop/web");
  EXPECT_EQ(r.close_periods(kT0 + 10 * kSamplePeriod), 0u);
  EXPECT_EQ(r.size(), 0u);  // and no model came back from them
}

}  // namespace
}  // namespace tailor::controller::recommendation
