#include "recommender/container_policy.h"

#include <gtest/gtest.h>

namespace tailor::recommender {
namespace {

TEST(ContainerPolicy, CapsTargetAndBoundsKeepsUncapped) {
  Recommendation r;
  r.target = {0.01, 8e9};
  r.lower_bound = {0.005, 6e9};
  r.upper_bound = {0.02, 9e9};
  ContainerPolicy p;
  p.min_allowed = {0.05, 64e6};
  p.max_allowed = {4, 4e9};
  const Recommendation c = apply_container_policy(r, p);
  EXPECT_EQ(c.target, (Resources{0.05, 4e9}));
  EXPECT_EQ(c.lower_bound, (Resources{0.05, 4e9}));
  EXPECT_EQ(c.upper_bound, (Resources{0.05, 4e9}));
  EXPECT_EQ(c.uncapped_target, r.target);
}

TEST(ContainerPolicy, UnsetBoundsChangeNothingAndMaxWinsOverMin) {
  Recommendation r;
  r.target = r.lower_bound = r.upper_bound = {1, 1e9};
  EXPECT_EQ(apply_container_policy(r, {}).target, r.target);
  ContainerPolicy conflicting;
  conflicting.min_allowed = {2, 2e9};
  conflicting.max_allowed = {1.5, 1.5e9};
  EXPECT_EQ(apply_container_policy(r, conflicting).target, (Resources{1.5, 1.5e9}));
}

}  // namespace
}  // namespace tailor::recommender
