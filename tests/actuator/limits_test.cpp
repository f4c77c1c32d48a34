// Expectations from VPA's limit_and_request_scaling_test.go and capping_test.go.
#include "actuator/limits.h"

#include <gtest/gtest.h>

#include "fixtures.h"

namespace tailor::actuator {
namespace {

using testing_support::q;

struct LimitCase {
  const char* name;
  const char* resource;
  const char* limit;    // "" = unset
  const char* request;  // "" = unset
  const char* recommended;
  const char* default_limit;  // "" = unset
  const char* expected;       // "" = no limit
};

TEST(ProportionalLimit, AsVpaKeepsTheRatio) {
  std::vector<LimitCase> cases{
      {"NoLimitNoDefault", "cpu", "", "1", "2", "", ""},
      {"LimitOnlyMeansEqual", "cpu", "1", "", "2", "", "2"},
      {"EqualStaysEqual", "memory", "1Gi", "1Gi", "3Gi", "", "3Gi"},
      {"DoubleRatioCpu", "cpu", "2", "1", "300m", "", "600m"},
      {"CpuRoundsDownInMillis", "cpu", "1", "3", "1", "", "333m"},
      {"MemoryInWholeBytes", "memory", "3", "2", "3", "", "4"},
      {"DefaultLimitFromLimitRange", "memory", "", "100Mi", "200Mi", "300Mi", "600Mi"},
      {"ZeroRecommendation", "cpu", "2", "1", "0", "", ""},
  };
  for (const auto& c : cases) {
    kube::Quantity limit = *c.limit ? q(c.limit) : kube::Quantity();
    kube::Quantity request = *c.request ? q(c.request) : kube::Quantity();
    kube::Quantity def = *c.default_limit ? q(c.default_limit) : kube::Quantity();
    auto got =
        proportional_limit(c.resource, *c.limit ? &limit : nullptr, *c.request ? &request : nullptr,
                           q(c.recommended), *c.default_limit ? &def : nullptr);
    if (*c.expected) {
      ASSERT_TRUE(got) << c.name;
      EXPECT_EQ(*got, q(c.expected)) << c.name << " got " << *got;
    } else {
      EXPECT_FALSE(got) << c.name;
    }
  }
}

TEST(ProportionalLimit, HugeRatiosSaturate) {
  kube::Quantity limit = q("9000P"), request = q("1");
  auto got = proportional_limit("memory", &limit, &request, q("9000P"), nullptr);
  ASSERT_TRUE(got);
  EXPECT_EQ(got->value(), INT64_MAX);
}

TEST(BoundaryRequest, KeepsTheContainersRatio) {
  kube::Quantity request = q("100m"), limit = q("200m");
  EXPECT_EQ(boundary_request("cpu", &request, &limit, q("1"), nullptr), q("500m"));
  EXPECT_EQ(boundary_request("cpu", nullptr, &limit, q("1"), nullptr), q("1"));
  EXPECT_TRUE(boundary_request("cpu", &request, nullptr, q("1"), nullptr).is_zero());
  kube::Quantity def = q("400m");
  EXPECT_EQ(boundary_request("cpu", &request, nullptr, q("1"), &def), q("250m"));
}

}  // namespace
}  // namespace tailor::actuator
