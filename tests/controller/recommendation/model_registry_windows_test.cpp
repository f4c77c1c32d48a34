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

// A window twice over the pod's CPU request ends its period early: the model and the pod's rule
// see the burst within the window, not at the period's end.
TEST(ModelRegistryWindows, AWindowFarOverTheRequestEndsItsPeriod) {
  ModelRegistry r(tailored());
  const ContainerModelKey k{"shop/web", "app"};
  EXPECT_EQ(r.observe_window(k, "shop/web-0/uid0", agent(kT0, 0.5), kRequest), std::nullopt);
  EXPECT_EQ(r.observe_window(k, "shop/web-0/uid0", agent(kT0 + 15, 1.9), kRequest), std::nullopt);
  // 2 cores on a 1-core request: the 30 s before it, and the window itself, are periods.
  EXPECT_EQ(r.observe_window(k, "shop/web-0/uid0", agent(kT0 + 30, 2.0), kRequest),
            std::optional<Seconds>(kT0 + 45));
  EXPECT_EQ(count(r, k), 2);
  EXPECT_EQ(r.samples(k)->last, kT0 + 30);
}

// The strategy's rule is asked per pod, with that pod's own last period: one pod's burst raises
// that pod, and the quiet pod beside it keeps its request. Asking changes nothing; an applied
// raise starts the rule's hold.
TEST(ModelRegistryWindows, DecidesEachPodOnItsOwnLastPeriod) {
  ModelRegistry r(tailored());
  const ContainerModelKey k{"shop/web", "app"};
  Seconds t = kT0;
  for (; t < kT0 + 6 * 3600; t += 15) {
    r.observe_window(k, "shop/web-0/uid0", agent(t, 0.5), kRequest);
    r.observe_window(k, "shop/web-1/uid1", agent(t, 0.5), kRequest);
  }
  const Resources request{.cpu_cores = 0.6, .memory_bytes = 512 * kMiB};
  r.observe_window(k, "shop/web-0/uid0", agent(t, 0.5), request);
  ASSERT_TRUE(r.observe_window(k, "shop/web-1/uid1", agent(t, 2.0), request));
  const Seconds now = t + 15;
  const auto busy = r.decide(k, "shop/web-1", "uid1", request, now, 3600);
  ASSERT_TRUE(busy);
  EXPECT_DOUBLE_EQ(busy->cpu_cores, 2.0 * 1.2);  // the burst's mean + 20 %
  const auto quiet = r.decide(k, "shop/web-0", "uid0", request, now, 3600);
  EXPECT_TRUE(!quiet || quiet->cpu_cores <= request.cpu_cores);
  // Side-effect free: the same answer again, no sample added.
  const long samples = count(r, k);
  EXPECT_EQ(r.decide(k, "shop/web-1", "uid1", request, now, 3600), busy);
  EXPECT_EQ(count(r, k), samples);
  EXPECT_EQ(r.decide(k, "shop/web-9", "uid9", request, now, 3600),
            r.decide(k, "shop/web-0", "uid0", request, now, 3600));  // no period: no burst
  EXPECT_EQ(r.decide({"shop/other", "app"}, "shop/web-1", "uid1", request, now, 0), std::nullopt);
  // Raised and told (after an earlier resize to `request`): for the rule's 30 minutes, a quiet
  // period does not lower it.
  r.applied(k, request, now - 3600);
  r.applied(k, *busy, now);
  for (Seconds q = now; q < now + 600; q += 15) {
    r.observe_window(k, "shop/web-1/uid1", agent(q, 0.5), *busy);
  }
  const auto held = r.decide(k, "shop/web-1", "uid1", *busy, now + 600, 600);
  EXPECT_TRUE(!held || held->cpu_cores >= busy->cpu_cores);
  const auto after = r.decide(k, "shop/web-1", "uid1", *busy, now + 3600, 3600);
  ASSERT_TRUE(after);
  EXPECT_LT(after->cpu_cores, busy->cpu_cores);
}

// A model found once (a pass's handle) decides as its key does, for every pod, and tells the
// same samples; a pod's history source (no uid) is found through it too. An unknown container
// has no handle.
TEST(ModelRegistryWindows, AHandleDecidesAsTheKeyDoes) {
  ModelRegistry r(tailored());
  const ContainerModelKey k{"shop/web", "app"};
  Seconds t = kT0;
  for (; t < kT0 + 3 * 3600; t += 15) {
    r.observe_window(k, "shop/web-0/uid0", agent(t, 0.5), kRequest);
    r.observe_window(k, "shop/web-1/", agent(t, 0.4), kRequest);  // a history's windows
  }
  r.observe_window(k, "shop/web-0/uid0", agent(t, 2.0), kRequest);
  r.observe_window(k, "shop/web-1/", agent(t, 3.0), kRequest);
  const Seconds now = t + 15;
  const auto handle = r.find(k);
  ASSERT_TRUE(handle);
  EXPECT_FALSE(r.find({"shop/other", "app"}));
  for (const char* pod : {"shop/web-0", "shop/web-1", "shop/web-9"}) {
    for (const char* uid : {"uid0", "uid1", ""}) {
      const auto by_key = r.decide(k, pod, uid, kRequest, now, 3600);
      EXPECT_EQ(r.decide(*handle, pod, uid, kRequest, now, 3600), by_key) << pod << " " << uid;
    }
  }
  EXPECT_TRUE(r.decide(*handle, "shop/web-1", "uid1", kRequest, now, 3600));  // the history's burst
  const auto span = r.samples(*handle);
  EXPECT_EQ(span.count, r.samples(k)->count);
  EXPECT_EQ(span.last, r.samples(k)->last);
}

}  // namespace
}  // namespace tailor::controller::recommendation
