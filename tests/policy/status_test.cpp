#include "policy/status.h"

#include <gtest/gtest.h>

#include "policy/decode.h"
#include "policy/effective.h"

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
    facts.overlap_message = "an event, not a condition, on VPA objects";
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
                  {"RecommendationProvided", "False", "ConfigInvalid",
                   "The spec is invalid: no recommendation is made"},
                  {"OverlappingPolicy", "True", "OlderPolicyWins", "1 pod is also selected by ..."},
                  {"HorizontalScalerConflict", "True", "HorizontalPodAutoscaler",
                   "HorizontalPodAutoscaler web scales ..."},
                  {"ResizeQuotaExceeded", "True", "ExceededQuota", "exceeded quota: compute"}}));
  update_conditions(PolicyApi::VerticalScalingPolicy,
                    PolicyFacts{.pods_matched = true, .has_recommendation = true}, "t1",
                    conditions);
  EXPECT_TRUE(rows(conditions) ==
              (std::vector<ConditionRow>{{"RecommendationProvided", "True", "", ""}}));
  EXPECT_EQ(conditions[0].last_transition_time, "t1");
}

// Issue 15's cases on VPA objects, each row what VPA's recommender (or, for the HPA conflict,
// Tailor) leaves in status.conditions. Missing target: cluster_feeder.go's getSelector sets
// ConfigUnsupported True with no reason and "Cannot read targetRef. Reason: <fetcher's error>",
// the fetcher's error for a well-known kind being "<Kind> <ns>/<name> does not exist"; the
// selector then matches nothing, so NoPodsMatched follows as model/vpa.go's UpdateConditions
// sets it. An invalid spec (Tailor validates more than VPA's CRD) is not matched against pods.
TEST(UpdateConditions, VpaObjectsInIssue15sCases) {
  struct Case {
    const char* name;
    PolicyFacts facts;
    std::vector<ConditionRow> expected;
  };
  const std::string missing =
      "Cannot read targetRef. Reason: Deployment default/gone does not exist";
  const std::string has_parent =
      "The target apps/v1.ReplicaSet/web-5d9 has a parent controller but it should point to a "
      "topmost well-known or scalable controller";
  // The InPlace row's facts come from a VPA spec with updateMode InPlace (in the upstream CRD's
  // enum) decoded and validated as the controller does (cluster_view.cpp policy_object): no
  // problems, so with pods matched and a recommendation nothing but RecommendationProvided.
  const Decoded<VerticalPodAutoscaler> in_place = decode_vertical_pod_autoscaler(
      R"({"apiVersion":"autoscaling.k8s.io/v1","kind":"VerticalPodAutoscaler",)"
      R"("metadata":{"name":"web","namespace":"default"},)"
      R"("spec":{"targetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},)"
      R"("updatePolicy":{"updateMode":"InPlace"}}})");
  ASSERT_TRUE(in_place.ok()) << in_place.error;
  Validated in_place_validated = validate(in_place.object);
  ASSERT_TRUE(in_place_validated.policy) << problems_message(in_place_validated.problems);
  EXPECT_EQ(in_place_validated.policy->mode, UpdateMode::InPlace);
  std::vector<Case> cases{
      {"InPlaceModeWithPodsMatched",
       {.problems = in_place_validated.problems, .pods_matched = true, .has_recommendation = true},
       {{"RecommendationProvided", "True", "", ""}}},
      {"MissingTarget",
       {.target_message = missing},
       {{"ConfigUnsupported", "True", "", missing},
        {"NoPodsMatched", "True", "NoPodsMatched", "No pods match this VPA object"},
        {"RecommendationProvided", "False", "NoPodsMatched", "No pods match this VPA object"}}},
      // validateTargetRef: the selector is then Nothing, so NoPodsMatched as for a missing one.
      {"TargetWithAParentController",
       {.target_message = has_parent},
       {{"ConfigUnsupported", "True", "", has_parent},
        {"NoPodsMatched", "True", "NoPodsMatched", "No pods match this VPA object"},
        {"RecommendationProvided", "False", "NoPodsMatched", "No pods match this VPA object"}}},
      {"InvalidSpecClaimsNoPodsMatched",
       {.problems = {"spec.resourcePolicy.containerPolicies[0].minAllowed.cpu: 2 is greater than "
                     "maxAllowed 1"}},
       {{"ConfigUnsupported", "True", "InvalidSpec",
         "spec.resourcePolicy.containerPolicies[0].minAllowed.cpu: 2 is greater than maxAllowed 1"},
        {"RecommendationProvided", "False", "ConfigUnsupported",
         "The spec is invalid: no recommendation is made"}}},
      {"HpaConflictIsACondition",
       {.pods_matched = true,
        .has_recommendation = true,
        .overlap_message = "stays an event on VPA objects",
        .hpa_message = "HorizontalPodAutoscaler web scales Deployment web on cpu",
        .quota_message = "stays an event on VPA objects"},
       {{"RecommendationProvided", "True", "", ""},
        {"HorizontalScalerConflict", "True", "HorizontalPodAutoscaler",
         "HorizontalPodAutoscaler web scales Deployment web on cpu"}}},
  };
  for (const auto& c : cases) {
    std::vector<PolicyCondition> conditions;
    update_conditions(PolicyApi::VerticalPodAutoscaler, c.facts, "t0", conditions);
    EXPECT_TRUE(rows(conditions) == c.expected) << c.name;
  }
}

// A targetRef that comes back (the Deployment created after the VPA object) clears
// ConfigUnsupported and NoPodsMatched once pods match, as VPA's getSelector deletes it.
TEST(UpdateConditions, TargetThatAppearsClearsConfigUnsupported) {
  std::vector<PolicyCondition> conditions;
  update_conditions(
      PolicyApi::VerticalPodAutoscaler,
      {.target_message = "Cannot read targetRef. Reason: Deployment d/w does not exist"}, "t0",
      conditions);
  update_conditions(PolicyApi::VerticalPodAutoscaler, {.pods_matched = true}, "t1", conditions);
  EXPECT_TRUE(rows(conditions) ==
              (std::vector<ConditionRow>{{"RecommendationProvided", "False", "", ""}}));
}

// A VerticalScalingPolicy is never told VPA's ConfigUnsupported for its target.
TEST(UpdateConditions, TargetMessageIsForVpaObjectsOnly) {
  std::vector<PolicyCondition> conditions;
  update_conditions(PolicyApi::VerticalScalingPolicy, {.target_message = "Cannot read targetRef"},
                    "t0", conditions);
  EXPECT_EQ(find_condition(conditions, kConfigUnsupported), nullptr);
  EXPECT_EQ(find_condition(conditions, kConfigInvalid), nullptr);
  EXPECT_NE(find_condition(conditions, kNoPodsMatched), nullptr);
}

}  // namespace
}  // namespace tailor::policy
