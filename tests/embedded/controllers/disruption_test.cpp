// PodDisruptionBudget arithmetic against the disruption controller's cases.
#include "embedded/controllers/disruption.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace tailor::embedded {
namespace {

namespace bj = boost::json;

struct BudgetCase {
  std::string name;
  std::optional<bj::value> min_available, max_unavailable;
  std::int64_t pods;
  std::optional<std::int64_t> scale;
  std::int64_t healthy;
  BudgetNumbers want;
};

TEST(DisruptionTest, BudgetNumbers) {
  std::vector<BudgetCase> cases = {
      {"minAvailable int counts matching pods", 2, {}, 3, {}, 3, {3, 2, 1}},
      {"minAvailable int, not enough healthy", 2, {}, 2, {}, 2, {2, 2, 0}},
      {"minAvailable percent uses controller scale, rounding up", "50%", {}, 3, 3, 3, {3, 2, 1}},
      {"maxUnavailable int", {}, 1, 3, 3, 3, {3, 2, 1}},
      {"maxUnavailable percent rounds up", {}, "30%", 4, 4, 4, {4, 2, 2}},
      {"maxUnavailable larger than scale", {}, 5, 2, 2, 2, {2, 0, 2}},
      {"maxUnavailable zero blocks", {}, 0, 2, 2, 2, {2, 2, 0}},
      {"neither: nothing allowed", {}, {}, 3, {}, 3, {0, 0, 0}},
      {"no pods: nothing allowed", 0, {}, 0, {}, 0, {0, 0, 0}},
  };
  for (const BudgetCase& c : cases) {
    BudgetInputs in;
    in.min_available = c.min_available ? &*c.min_available : nullptr;
    in.max_unavailable = c.max_unavailable ? &*c.max_unavailable : nullptr;
    in.matching_pods = c.pods;
    in.controller_scale = c.scale;
    in.current_healthy = c.healthy;
    BudgetNumbers got = budget_numbers(in);
    EXPECT_EQ(got.expected_pods, c.want.expected_pods) << c.name;
    EXPECT_EQ(got.desired_healthy, c.want.desired_healthy) << c.name;
    EXPECT_EQ(got.disruptions_allowed, c.want.disruptions_allowed) << c.name;
  }
}

TEST(DisruptionTest, PercentWithoutControllersFails) {
  bj::value min = "50%";
  BudgetInputs in;
  in.min_available = &min;
  in.matching_pods = 2;
  EXPECT_THROW(budget_numbers(in), std::invalid_argument);
}

TEST(DisruptionTest, MalformedPercentIsAnError) {
  bj::value max = "half";
  BudgetInputs in;
  in.max_unavailable = &max;
  in.controller_scale = 2;
  EXPECT_THROW(budget_numbers(in), std::invalid_argument);
}

}  // namespace
}  // namespace tailor::embedded
