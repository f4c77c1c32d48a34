#include "policy/status.h"

#include <gtest/gtest.h>

#include "policy/decode.h"

namespace tailor::policy {
namespace {

using kube::Quantity;

TEST(PolicyConditions, TransitionTimeChangesOnlyWithTheStatus) {
  std::vector<PolicyCondition> conditions;
  set_condition(conditions, kRecommendationProvided, "False", "", "", "2026-01-01T00:00:00Z");
  set_condition(conditions, kRecommendationProvided, "False", "Why", "msg", "2026-01-01T00:01:00Z");
  ASSERT_EQ(conditions.size(), 1u);
  EXPECT_EQ(conditions[0].last_transition_time, "2026-01-01T00:00:00Z");
  EXPECT_EQ(conditions[0].reason, "Why");
  EXPECT_EQ(conditions[0].message, "msg");
  set_condition(conditions, kRecommendationProvided, "True", "", "", "2026-01-01T00:02:00Z");
  EXPECT_EQ(conditions[0].last_transition_time, "2026-01-01T00:02:00Z");
  EXPECT_EQ(conditions[0].reason, "");
  set_condition(conditions, kConfigInvalid, "True", "Invalid", "x", "2026-01-01T00:03:00Z");
  ASSERT_NE(find_condition(conditions, kConfigInvalid), nullptr);
  remove_condition(conditions, kConfigInvalid);
  EXPECT_EQ(find_condition(conditions, kConfigInvalid), nullptr);
  EXPECT_EQ(conditions.size(), 1u);
}

TEST(PolicyConditions, InvalidConfigTypePerApi) {
  EXPECT_EQ(invalid_config_condition(PolicyApi::VerticalScalingPolicy), "ConfigInvalid");
  EXPECT_EQ(invalid_config_condition(PolicyApi::VerticalPodAutoscaler), "ConfigUnsupported");
}

PolicyStatus sample_status() {
  PolicyStatus s;
  RecommendedContainerResources r;
  r.container_name = "app";
  r.target = {{"cpu", Quantity::parse("250m")}, {"memory", Quantity::parse("262144k")}};
  r.lower_bound = {{"cpu", Quantity::parse("100m")}, {"memory", Quantity::parse("128Mi")}};
  r.upper_bound = {{"cpu", Quantity::parse("1")}, {"memory", Quantity::parse("1Gi")}};
  r.uncapped_target = r.target;
  s.recommendation = RecommendedPodResources{{r}};
  set_condition(s.conditions, kRecommendationProvided, "True", "", "", "2026-01-01T00:00:00Z");
  return s;
}

TEST(PolicyStatusJson, AsVpaWritesIt) {
  EXPECT_EQ(
      status_json(sample_status()),
      R"({"recommendation":{"containerRecommendations":[{"containerName":"app",)"
      R"("target":{"cpu":"250m","memory":"262144k"},"lowerBound":{"cpu":"100m","memory":"128Mi"},)"
      R"("upperBound":{"cpu":"1","memory":"1Gi"},"uncappedTarget":{"cpu":"250m","memory":"262144k"}}]},)"
      R"("conditions":[{"type":"RecommendationProvided","status":"True",)"
      R"("lastTransitionTime":"2026-01-01T00:00:00Z"}]})");
  EXPECT_EQ(status_json(PolicyStatus{}), "{}");
}

TEST(PolicyStatusJson, PatchIsAJsonPatchAddOfStatus) {
  EXPECT_EQ(status_patch(PolicyStatus{}), R"([{"op":"add","path":"/status","value":{}}])");
}

TEST(PolicyStatusJson, RoundTripsThroughTheDecoder) {
  PolicyStatus s = sample_status();
  auto p = decode_vertical_scaling_policy_or_throw(R"({"metadata":{"name":"p"},"status":)" +
                                                   status_json(s) + "}");
  EXPECT_EQ(p.status, s);
  auto v = decode_vertical_pod_autoscaler_or_throw(R"({"metadata":{"name":"v"},"status":)" +
                                                   status_json(s) + "}");
  EXPECT_EQ(v.status, s);
}

}  // namespace
}  // namespace tailor::policy

namespace tailor::policy {
namespace {

struct ConditionRow {
  std::string type, status, reason, message;
};

std::vector<ConditionRow> rows(const std::vector<PolicyCondition>& conditions) {
  std::vector<ConditionRow> out;
  for (const auto& c : conditions) out.push_back({c.type, c.status, c.reason, c.message});
  return out;
}

bool operator==(const ConditionRow& a, const ConditionRow& b) {
  return a.type == b.type && a.status == b.status && a.reason == b.reason && a.message == b.message;
}

// VPA's recommender table (model/vpa_test.go, TestUpdateConditions).
TEST(UpdateConditions, AsVpasRecommenderForVpaObjects) {
  struct Case {
    bool pods, recommendation;
    std::vector<ConditionRow> expected;
  };
  std::vector<Case> cases{
      {true, true, {{"RecommendationProvided", "True", "", ""}}},
      {false,
       true,
       {{"NoPodsMatched", "True", "NoPodsMatched", "No pods match this VPA object"},
        {"RecommendationProvided", "True", "", ""}}},
      {true, false, {{"RecommendationProvided", "False", "", ""}}},
      {false,
       false,
       {{"NoPodsMatched", "True", "NoPodsMatched", "No pods match this VPA object"},
        {"RecommendationProvided", "False", "NoPodsMatched", "No pods match this VPA object"}}},
  };
  for (const auto& c : cases) {
    std::vector<PolicyCondition> conditions;
    PolicyFacts facts;
    facts.pods_matched = c.pods;
    facts.has_recommendation = c.recommendation;
    facts.hpa_message = "ignored for VPA objects";
    update_conditions(PolicyApi::VerticalPodAutoscaler, facts, "2026-01-01T00:00:00Z", conditions);
    EXPECT_TRUE(rows(conditions) == c.expected) << c.pods << c.recommendation;
  }
}

TEST(UpdateConditions, TailorsOwnComeAndGo) {
  std::vector<PolicyCondition> conditions;
  PolicyFacts facts;
  facts.problems = {"spec.targetRef.name: Required value"};
  facts.overlap_message = "1 pod is also selected by ...";
  facts.hpa_message = "HorizontalPodAutoscaler web scales ...";
  facts.quota_message = "exceeded quota: compute";
  update_conditions(PolicyApi::VerticalScalingPolicy, facts, "t0", conditions);
  EXPECT_TRUE(rows(conditions) ==
              (std::vector<ConditionRow>{
                  {"ConfigInvalid", "True", "InvalidSpec", "spec.targetRef.name: Required value"},
                  {"NoPodsMatched", "True", "NoPodsMatched", "No pods match this policy"},
                  {"RecommendationProvided", "False", "NoPodsMatched", "No pods match this policy"},
                  {"OverlappingPolicy", "True", "OlderPolicyWins", "1 pod is also selected by ..."},
                  {"HorizontalScalerConflict", "True", "HorizontalPodAutoscaler",
                   "HorizontalPodAutoscaler web scales ..."},
                  {"ResizeQuotaExceeded", "True", "ExceededQuota", "exceeded quota: compute"}}));
  update_conditions(PolicyApi::VerticalScalingPolicy, PolicyFacts{{}, true, true}, "t1",
                    conditions);
  EXPECT_TRUE(rows(conditions) ==
              (std::vector<ConditionRow>{{"RecommendationProvided", "True", "", ""}}));
  EXPECT_EQ(conditions[0].last_transition_time, "t1");
}

}  // namespace
}  // namespace tailor::policy
