#include "controller/recommendation/model_registry.h"

#include <gtest/gtest.h>

namespace tailor::controller::recommendation {
namespace {

using recommender::kHour;
using recommender::kMiB;

std::shared_ptr<const recommender::StrategyFactory> vpa() {
  return std::shared_ptr<const recommender::StrategyFactory>(recommender::make_vpa_strategy());
}

void feed(ModelRegistry& r, const ContainerModelKey& key, Seconds from, Seconds to, double cpu,
          double mem) {
  for (Seconds t = from; t < to; t += 60) {
    r.observe(key, {.start = t, .length = 60, .cpu_cores = cpu, .memory_peak_bytes = mem},
              {.cpu_cores = 1, .memory_bytes = 1024 * kMiB});
  }
}

TEST(ModelRegistry, RecommendsPerPolicyAndContainer) {
  ModelRegistry r(vpa());
  ContainerModelKey app{"shop/web", "app"}, side{"shop/web", "proxy"};
  EXPECT_FALSE(r.recommend(app, 0).has_value());
  feed(r, app, 0, 2 * kHour, 2.0, 800 * kMiB);
  feed(r, side, 0, 2 * kHour, 0.1, 300 * kMiB);
  auto a = r.recommend(app, 2 * kHour);
  auto s = r.recommend(side, 2 * kHour);
  ASSERT_TRUE(a && s);
  // VPA: p90 of CPU plus 15% margin; whatever the exact bucket, far apart.
  EXPECT_GT(a->target.cpu_cores, 2.0);
  EXPECT_LT(s->target.cpu_cores, 0.5);
  EXPECT_GT(a->target.memory_bytes, 800 * kMiB);
  EXPECT_EQ(r.containers("shop/web"), (std::vector<std::string>{"app", "proxy"}));
  EXPECT_EQ(r.size(), 2u);
  EXPECT_GT(r.state_bytes(), 0u);
}

TEST(ModelRegistry, OomRaisesMemoryAtOnce) {
  ModelRegistry r(vpa());
  ContainerModelKey k{"shop/web", "app"};
  feed(r, k, 0, kHour, 0.5, 100 * kMiB);
  double before = r.recommend(k, kHour)->target.memory_bytes;
  r.on_oom(k, kHour, 1024 * kMiB, 1024 * kMiB);
  EXPECT_GT(r.recommend(k, kHour)->target.memory_bytes, before);
}

TEST(ModelRegistry, ForgetsPoliciesAndIdleContainers) {
  ModelRegistry r(vpa());
  feed(r, {"a/p", "c1"}, 0, kHour, 1, 100 * kMiB);
  feed(r, {"a/p", "c2"}, 0, 3 * kHour, 1, 100 * kMiB);
  feed(r, {"a/q", "c1"}, 0, kHour, 1, 100 * kMiB);
  EXPECT_EQ(r.forget_idle(2 * kHour), 2u);  // a/p c1 and a/q c1 ended at 1 h
  EXPECT_EQ(r.containers("a/p"), (std::vector<std::string>{"c2"}));
  r.forget_policy("a/p");
  EXPECT_EQ(r.size(), 0u);
}

}  // namespace
}  // namespace tailor::controller::recommendation
