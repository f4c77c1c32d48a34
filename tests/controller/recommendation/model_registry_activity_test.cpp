// What the per-workload series read of the models at scrape time (ModelRegistry::each_activity):
// the pods' latest usage (open period as it stands, else the last completed one), and the
// counts of OOM kills, resizes and CPU shortfall kept beside each model.
#include <gtest/gtest.h>

#include <map>

#include "controller/recommendation/model_registry.h"

namespace tailor::controller::recommendation {
namespace {

using recommender::kMiB;
using recommender::MeasuredWindow;

constexpr Seconds kPeriod = 60;
constexpr Seconds kT0 = 1'800'000'000;  // a period boundary
constexpr Resources kRequest{.cpu_cores = 0.5, .memory_bytes = 512 * kMiB};

MeasuredWindow window(Seconds at, Seconds length, double cpu, double memory_mib) {
  return {.start_ms = at * 1000,
          .end_ms = (at + length) * 1000,
          .cpu_mean_cores = cpu,
          .cpu_peak_cores = 2 * cpu,
          .memory_peak_bytes = memory_mib * kMiB};
}

std::map<ContainerModelKey, ContainerActivity> activity(const ModelRegistry& r) {
  std::map<ContainerModelKey, ContainerActivity> out;
  r.each_activity([&](const auto& k, const auto& a) { out[k] = a; });
  return out;
}

TEST(ModelRegistryActivity, LatestUsageOfEachPodOpenPeriodElseLastCompleted) {
  ModelRegistry r(
      std::shared_ptr<const recommender::StrategyFactory>(recommender::make_default_strategy()),
      kPeriod);
  const ContainerModelKey k{"shop/web", "app"};
  // web-0: a whole period at 0.9 cores (over its 0.5 request), ending on the boundary: completed.
  r.observe_window(k, "shop/web-0/u0", window(kT0, 60, 0.9, 100), kRequest);
  // web-1: half a period open at 0.2 cores.
  r.observe_window(k, "shop/web-1/u1", window(kT0, 30, 0.2, 300), kRequest);
  auto a = activity(r).at(k);
  EXPECT_EQ(a.pods, 2);
  EXPECT_DOUBLE_EQ(a.cpu_mean_sum, 1.1);
  EXPECT_DOUBLE_EQ(a.cpu_peak, 1.8);
  EXPECT_DOUBLE_EQ(a.memory_sum, 400 * kMiB);
  EXPECT_DOUBLE_EQ(a.memory_peak, 300 * kMiB);
  // 0.4 cores over the request for 60 s, from web-0's completed period only.
  EXPECT_DOUBLE_EQ(a.cpu_shortfall_core_seconds, 24);
  EXPECT_EQ(a.oom_kills, 0u);
  EXPECT_EQ(a.resizes, 0u);

  r.on_oom(k, kT0 + 40, 512 * kMiB, 512 * kMiB);
  r.applied(k, {.cpu_cores = 1, .memory_bytes = 512 * kMiB}, kT0 + 50);
  r.applied({"shop/web", "unknown"}, kRequest, kT0 + 50);  // no model: nothing counted
  // web-1 gone quiet: its open period is observed as it stands and its fold forgotten.
  r.close_periods(kT0 + 45);
  a = activity(r).at(k);
  EXPECT_EQ(a.pods, 1);
  EXPECT_DOUBLE_EQ(a.cpu_mean_sum, 0.9);
  EXPECT_EQ(a.oom_kills, 1u);
  EXPECT_EQ(a.resizes, 1u);
  EXPECT_EQ(activity(r).size(), 1u);
}

TEST(ModelRegistryActivity, CountsGoWithTheModel) {
  ModelRegistry r(
      std::shared_ptr<const recommender::StrategyFactory>(recommender::make_default_strategy()),
      kPeriod);
  const ContainerModelKey k{"shop/web", "app"};
  r.observe_window(k, "shop/web-0/u0", window(kT0, 60, 1.0, 100), kRequest);
  r.on_oom(k, kT0 + 40, 512 * kMiB, 512 * kMiB);
  r.forget_policy("shop/web");
  EXPECT_TRUE(activity(r).empty());
  r.on_oom(k, kT0 + 100, 512 * kMiB, 512 * kMiB);
  EXPECT_EQ(activity(r).at(k).oom_kills, 1u);  // anew
  EXPECT_EQ(activity(r).at(k).pods, 0);        // no usage yet
}

}  // namespace
}  // namespace tailor::controller::recommendation
