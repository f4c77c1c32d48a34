#include "actuator/caps.h"

#include <gtest/gtest.h>

#include "fixtures.h"

namespace tailor::actuator {
namespace {

using namespace testing_support;

policy::EffectiveContainerPolicy bounds(const std::string& min, const std::string& max) {
  policy::EffectiveContainerPolicy p;
  p.container_name = "app";
  p.min_allowed = rl(min);
  p.max_allowed = rl(max);
  return p;
}

struct CapCase {
  const char* name;
  kube::Container container;
  std::string recommendation;
  std::string min_allowed, max_allowed;
  std::optional<LimitRangeItem> range;
  std::string expected;
};

LimitRangeItem range(const std::string& min, const std::string& max) {
  LimitRangeItem item;
  item.type = "Container";
  item.min = rl(min);
  item.max = rl(max);
  return item;
}

TEST(CapResources, PolicyAndLimitRangeAsVpa) {
  std::vector<CapCase> cases{
      {"NoBounds", container("app", "cpu=1"), "cpu=5,memory=1Gi", "", "", std::nullopt,
       "cpu=5,memory=1Gi"},
      {"MinAllowed", container("app", "cpu=1"), "cpu=10m,memory=10Mi", "cpu=50m,memory=64Mi", "",
       std::nullopt, "cpu=50m,memory=64Mi"},
      {"MaxAllowed", container("app", "cpu=1"), "cpu=8,memory=16Gi", "", "cpu=4,memory=8Gi",
       std::nullopt, "cpu=4,memory=8Gi"},
      {"ZeroBoundIsNoBound", container("app", "cpu=1"), "cpu=8", "", "cpu=0", std::nullopt,
       "cpu=8"},
      {"LimitRangeMaxInTheContainersRatio", container("app", "cpu=1", "cpu=2"), "cpu=3", "", "",
       range("", "cpu=4"), "cpu=2"},
      {"LimitRangeMaxWithoutLimitDoesNotBind", container("app", "cpu=1"), "cpu=3", "", "",
       range("", "cpu=2"), "cpu=3"},
      {"LimitRangeMinBindsTheRequestToo", container("app", "memory=100Mi"), "memory=10Mi", "", "",
       range("memory=50Mi", ""), "memory=50Mi"},
      {"PolicyWinsOverLimitRange", container("app", "cpu=1", "cpu=2"), "cpu=3", "cpu=2500m", "",
       range("", "cpu=4"), "cpu=2500m"},
  };
  for (const auto& c : cases) {
    auto got = cap_resources(rl(c.recommendation), c.container,
                             bounds(c.min_allowed, c.max_allowed), c.range ? &*c.range : nullptr);
    EXPECT_EQ(got, rl(c.expected)) << c.name;
  }
}

TEST(CapRecommendation, BoundsCappedUncappedKept) {
  auto rec = recommendation("app", "cpu=8", "cpu=10m", "cpu=16");
  auto got =
      cap_recommendation(rec, container("app", "cpu=1"), bounds("cpu=100m", "cpu=4"), nullptr);
  EXPECT_EQ(got.target, rl("cpu=4"));
  EXPECT_EQ(got.lower_bound, rl("cpu=100m"));
  EXPECT_EQ(got.upper_bound, rl("cpu=4"));
  EXPECT_EQ(got.uncapped_target, rl("cpu=8"));
}

TEST(ContainerLimitRange, MergesTightest) {
  LimitRangeItem a = range("cpu=10m", "cpu=4,memory=8Gi");
  a.default_limit = rl("cpu=1");
  a.max_limit_request_ratio = rl("cpu=4");
  LimitRangeItem b = range("cpu=50m", "cpu=2");
  b.default_limit = rl("cpu=2,memory=1Gi");
  b.max_limit_request_ratio = rl("cpu=2");
  LimitRangeItem pod;
  pod.type = "Pod";
  pod.max = rl("cpu=1m");
  auto merged = container_limit_range({a, pod, b});
  ASSERT_TRUE(merged);
  EXPECT_EQ(merged->min, rl("cpu=50m"));
  EXPECT_EQ(merged->max, rl("cpu=2,memory=8Gi"));
  EXPECT_EQ(merged->default_limit, rl("cpu=1,memory=1Gi"));
  EXPECT_EQ(merged->max_limit_request_ratio, rl("cpu=2"));
  EXPECT_FALSE(container_limit_range({pod}));
}

}  // namespace
}  // namespace tailor::actuator

namespace tailor::actuator {
namespace {

using namespace testing_support;

TEST(PodLimitRange, ScalesContainersToFitThePodBounds) {
  kube::Pod pod = running_pod({container("a", "cpu=100m,memory=100Mi", "cpu=100m"),
                               container("b", "cpu=100m,memory=100Mi", "cpu=200m")});
  LimitRangeItem item;
  item.type = "Pod";
  item.max = rl("cpu=3");
  item.min = rl("memory=1Gi");
  std::vector<policy::RecommendedContainerResources> recs{
      recommendation("a", "cpu=1,memory=256Mi", "cpu=500m,memory=128Mi", "cpu=2,memory=512Mi"),
      recommendation("b", "cpu=1,memory=256Mi", "cpu=500m,memory=128Mi", "cpu=2,memory=512Mi")};
  cap_to_pod_limit_range(recs, pod, item);
  // cpu target: limits 1 + 2 = 3 fit max 3; upper bound: 2 + 4 = 6 -> halved.
  EXPECT_EQ(recs[0].target.at("cpu"), q("1"));
  EXPECT_EQ(recs[0].upper_bound.at("cpu"), q("1"));
  EXPECT_EQ(recs[1].upper_bound.at("cpu"), q("1"));
  EXPECT_EQ(recs[0].lower_bound.at("cpu"), q("500m"));
  // memory below the pod minimum: raised in proportion (no limits, so only the sum counts).
  EXPECT_EQ(recs[0].target.at("memory"), q("512Mi"));
  EXPECT_EQ(recs[1].lower_bound.at("memory"), q("512Mi"));
  EXPECT_EQ(recs[1].upper_bound.at("memory"), q("512Mi"));
}

TEST(PodLimitRange, MergedFromPodItemsOnly) {
  LimitRangeItem c;
  c.type = "Container";
  c.max = rl("cpu=1");
  LimitRangeItem p1;
  p1.type = "Pod";
  p1.max = rl("cpu=4");
  LimitRangeItem p2;
  p2.type = "Pod";
  p2.max = rl("cpu=2");
  auto merged = pod_limit_range({c, p1, p2});
  ASSERT_TRUE(merged);
  EXPECT_EQ(merged->max, rl("cpu=2"));
  EXPECT_FALSE(pod_limit_range({c}));
}

}  // namespace
}  // namespace tailor::actuator
