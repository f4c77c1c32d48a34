// Deployment rollout arithmetic against the deployment controller's cases.
#include "embedded/controllers/rollout.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace tailor::embedded {
namespace {

namespace bj = boost::json;

struct ResolveCase {
  bj::value value;
  std::int64_t total;
  bool round_up;
  std::int64_t want;
};

TEST(RolloutTest, ResolvesIntOrPercent) {
  std::vector<ResolveCase> cases = {
      {3, 10, true, 3},     {"25%", 10, true, 3},  {"25%", 10, false, 2},
      {"0%", 10, true, 0},  {"100%", 3, false, 3}, {"50%", 1, true, 1},
      {"50%", 1, false, 0}, {"33%", 3, true, 1},   {"1%", 0, true, 0},
  };
  for (const ResolveCase& c : cases) {
    EXPECT_EQ(resolve_int_or_percent(c.value, c.total, c.round_up, "f"), c.want)
        << bj::serialize(c.value) << " of " << c.total;
  }
}

TEST(RolloutTest, RejectsMalformedIntOrPercent) {
  for (const bj::value& bad : {bj::value("25"), bj::value("x%"), bj::value("-5%"), bj::value(1.5),
                               bj::value(bj::array{})}) {
    EXPECT_THROW(resolve_int_or_percent(bad, 10, true, "spec.strategy.rollingUpdate.maxSurge"),
                 std::invalid_argument)
        << bj::serialize(bad);
  }
  try {
    resolve_int_or_percent(bj::value("abc"), 10, true, "spec.maxSurge");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(
        e.what(),
        "spec.maxSurge: invalid value \"abc\": must be an integer or percentage (e.g '5%')");
  }
}

TEST(RolloutTest, DefaultLimitsOfThreeReplicas) {
  RollingLimits l = rolling_limits("25%", "25%", 3);
  EXPECT_EQ(l.max_surge, 1);        // 0.75 rounds up
  EXPECT_EQ(l.max_unavailable, 0);  // 0.75 rounds down
}

TEST(RolloutTest, BothLimitsZeroLeavesOneUnavailable) {
  RollingLimits l = rolling_limits(0, "10%", 5);
  EXPECT_EQ(l.max_surge, 0);
  EXPECT_EQ(l.max_unavailable, 1);
}

TEST(RolloutTest, HashIgnoresKeyOrderAndCountsCollisions) {
  bj::value a = bj::parse(R"({"metadata":{"labels":{"app":"web"}},"spec":{"containers":[]}})");
  bj::value b = bj::parse(R"({"spec":{"containers":[]},"metadata":{"labels":{"app":"web"}}})");
  bj::value c = bj::parse(R"({"spec":{"containers":[{"name":"x"}]},"metadata":{}})");
  EXPECT_EQ(pod_template_hash(a, 0), pod_template_hash(b, 0));
  EXPECT_NE(pod_template_hash(a, 0), pod_template_hash(c, 0));
  EXPECT_NE(pod_template_hash(a, 0), pod_template_hash(a, 1));
  for (char ch : pod_template_hash(a, 0)) {
    EXPECT_NE(std::string("bcdfghjklmnpqrstvwxz2456789").find(ch), std::string::npos) << ch;
  }
}

TEST(RolloutTest, SafeEncodeMapsDigitsToTheSafeAlphabet) {
  // '0' is 48: 48 % 27 = 21 -> '4'; '9' is 57: 57 % 27 = 3 -> 'f'.
  EXPECT_EQ(safe_encode("09"), "4f");
}

struct StepCase {
  std::string name;
  std::int64_t replicas;
  RollingLimits limits;
  ReplicaSetCounts new_set;
  std::vector<ReplicaSetCounts> old;
  std::int64_t want_new;
  std::vector<std::int64_t> want_old;
};

TEST(RolloutTest, RollingUpdateSteps) {
  std::vector<StepCase> cases = {
      {"new set grows by maxSurge first", 3, {1, 0}, {0, 0}, {{3, 3}}, 1, {3}},
      {"new set at surge: old shrinks as availability allows", 3, {1, 0}, {1, 1}, {{3, 3}}, 1, {2}},
      {"new pods not available yet: nothing shrinks", 3, {1, 0}, {1, 0}, {{3, 3}}, 1, {3}},
      {"unavailable old pods go first", 3, {1, 1}, {1, 0}, {{3, 1}}, 1, {2}},
      {"maxUnavailable lets old shrink at once", 4, {0, 2}, {0, 0}, {{4, 4}}, 0, {2}},
      {"then the new set grows into the room", 4, {0, 2}, {0, 0}, {{2, 2}}, 2, {2}},
      {"finishing: last old set goes", 2, {1, 0}, {2, 2}, {{1, 1}}, 2, {0}},
      {"oldest set shrinks first", 2, {1, 0}, {2, 2}, {{1, 1}, {1, 1}}, 2, {0, 0}},
      {"done: nothing moves", 2, {1, 0}, {2, 2}, {{0, 0}}, 2, {0}},
  };
  for (const StepCase& c : cases) {
    RolloutStep step = rolling_update_step(c.replicas, c.limits, c.new_set, c.old);
    EXPECT_EQ(step.new_replicas, c.want_new) << c.name;
    EXPECT_EQ(step.old_replicas, c.want_old) << c.name;
  }
}

}  // namespace
}  // namespace tailor::embedded
