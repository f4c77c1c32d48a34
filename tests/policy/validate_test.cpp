#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "policy/decode.h"
#include "policy/effective.h"

namespace tailor::policy {
namespace {

using testing::ElementsAre;
using testing::HasSubstr;

Validated validate_vsp(const std::string& spec) {
  return validate(decode_vertical_scaling_policy_or_throw(
      R"({"metadata":{"name":"p","namespace":"ns"},"spec":)" + spec + "}"));
}

Validated validate_vpa(const std::string& spec) {
  return validate(decode_vertical_pod_autoscaler_or_throw(
      R"({"metadata":{"name":"v","namespace":"ns"},"spec":)" + spec + "}"));
}

constexpr const char* kTarget =
    R"("targetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"})";

TEST(Validate, DefaultsOfAMinimalPolicy) {
  Validated v = validate_vsp(std::string("{") + kTarget + "}");
  ASSERT_TRUE(v.policy) << problems_message(v.problems);
  EXPECT_EQ(v.policy->mode, UpdateMode::InPlaceOrRecreate);
  EXPECT_EQ(v.policy->min_replicas, 1);
  EXPECT_EQ(v.policy->deferred_timeout, std::chrono::minutes(5));
  EXPECT_EQ(v.policy->in_progress_timeout, std::chrono::hours(1));
  EffectiveContainerPolicy c = container_policy_for(*v.policy, "app");
  EXPECT_EQ(c.mode, ContainerMode::Auto);
  EXPECT_EQ(c.controlled_values, ControlledValues::RequestsAndLimits);
  EXPECT_TRUE(c.controls("cpu"));
  EXPECT_TRUE(c.controls("memory"));
  EXPECT_FALSE(c.controls("ephemeral-storage"));
}

TEST(Validate, DurationsAndModesAreTaken) {
  Validated v = validate_vsp(std::string("{") + kTarget +
                             R"(,"updatePolicy":{"mode":"InPlace","deferredTimeout":"90s",
                                 "inProgressTimeout":"1h30m","minReplicas":3}})");
  ASSERT_TRUE(v.policy) << problems_message(v.problems);
  EXPECT_EQ(v.policy->mode, UpdateMode::InPlace);
  EXPECT_EQ(v.policy->deferred_timeout, std::chrono::seconds(90));
  EXPECT_EQ(v.policy->in_progress_timeout, std::chrono::minutes(90));
  EXPECT_EQ(v.policy->min_replicas, 3);
}

TEST(Validate, ContainerPolicyByNameBeforeWildcard) {
  Validated v =
      validate_vsp(std::string("{") + kTarget + R"(,"resourcePolicy":{"containerPolicies":[
      {"containerName":"*","controlledValues":"RequestsOnly","controlledResources":["memory"]},
      {"containerName":"sidecar","mode":"Off"}]}})");
  ASSERT_TRUE(v.policy);
  EXPECT_EQ(container_policy_for(*v.policy, "sidecar").mode, ContainerMode::Off);
  EXPECT_FALSE(container_policy_for(*v.policy, "sidecar").controls("memory"));
  EffectiveContainerPolicy app = container_policy_for(*v.policy, "app");
  EXPECT_EQ(app.container_name, "app");
  EXPECT_EQ(app.controlled_values, ControlledValues::RequestsOnly);
  EXPECT_FALSE(app.controls("cpu"));
  EXPECT_TRUE(app.controls("memory"));
}

struct ProblemCase {
  const char* name;
  std::string spec;
  std::vector<std::string> problems;
};

class VspProblems : public testing::TestWithParam<ProblemCase> {};

TEST_P(VspProblems, AreReportedWithPathsAndNoPolicy) {
  Validated v = validate_vsp(GetParam().spec);
  EXPECT_FALSE(v.policy);
  EXPECT_EQ(v.problems, GetParam().problems);
}

std::string with_target(const std::string& rest) {
  return std::string("{") + kTarget + "," + rest + "}";
}

INSTANTIATE_TEST_SUITE_P(
    Policy, VspProblems,
    testing::Values(
        ProblemCase{"NoTarget",
                    "{}",
                    {"spec.targetRef: Required value: targetRef or selector must be set"}},
        ProblemCase{"TargetAndSelector",
                    with_target(R"("selector":{"matchLabels":{"a":"b"}})"),
                    {"spec: Invalid value: targetRef and selector are mutually exclusive"}},
        ProblemCase{"TargetWithoutName",
                    R"({"targetRef":{"kind":"Deployment"}})",
                    {"spec.targetRef.name: Required value"}},
        ProblemCase{"UnknownMode",
                    with_target(R"("updatePolicy":{"mode":"Auto"})"),
                    {"spec.updatePolicy.mode: Unsupported value: \"Auto\": supported values: "
                     "\"Off\", \"Initial\", \"Recreate\", \"InPlaceOrRecreate\", \"InPlace\""}},
        ProblemCase{"MinAboveMax",
                    with_target(R"("resourcePolicy":{"containerPolicies":[{"containerName":"*",
                      "minAllowed":{"cpu":"2","memory":"1Gi"},"maxAllowed":{"cpu":"1500m","memory":"2Gi"}}]})"),
                    {"spec.resourcePolicy.containerPolicies[0].minAllowed.cpu: 2 is greater than "
                     "maxAllowed 1500m"}},
        ProblemCase{
            "BadDurationAndReplicas",
            with_target(
                R"("updatePolicy":{"deferredTimeout":"5 minutes","inProgressTimeout":"0s","minReplicas":0})"),
            {"spec.updatePolicy.minReplicas: must be greater than or equal to 1, got 0",
             "spec.updatePolicy.deferredTimeout: invalid duration \"5 minutes\": unknown unit \" "
             "minutes\"",
             "spec.updatePolicy.inProgressTimeout: must be a positive duration, got \"0s\""}},
        ProblemCase{
            "ContainerPolicyEnums",
            with_target(R"("resourcePolicy":{"containerPolicies":[{"containerName":"a",
                      "mode":"On","controlledValues":"LimitsOnly","controlledResources":["cpu","gpu"]},
                      {"containerName":"a"},{"mode":"Off"}]})"),
            {"spec.resourcePolicy.containerPolicies[0].mode: Unsupported value: \"On\": "
             "supported values: \"Auto\", \"Off\"",
             "spec.resourcePolicy.containerPolicies[0].controlledValues: Unsupported value: "
             "\"LimitsOnly\": supported values: \"RequestsAndLimits\", \"RequestsOnly\"",
             "spec.resourcePolicy.containerPolicies[0].controlledResources[1]: Unsupported "
             "value: \"gpu\": supported values: \"cpu\", \"memory\"",
             "spec.resourcePolicy.containerPolicies[1].containerName: Duplicate value: \"a\"",
             "spec.resourcePolicy.containerPolicies[2].containerName: Required value"}},
        ProblemCase{"NegativeAndUncontrolledBounds",
                    with_target(R"("resourcePolicy":{"containerPolicies":[{"containerName":"*",
                      "minAllowed":{"cpu":"-1"},"maxAllowed":{"nvidia.com/gpu":"1"}}]})"),
                    {"spec.resourcePolicy.containerPolicies[0].minAllowed.cpu: must be greater "
                     "than or equal to 0, got -1",
                     "spec.resourcePolicy.containerPolicies[0].maxAllowed.nvidia.com/gpu: "
                     "Unsupported value: only cpu and memory are controlled"}},
        ProblemCase{"Percentiles",
                    with_target(R"("recommender":{"cpuPercentile":1.5,"lowerBoundPercentile":0.9,
                      "upperBoundPercentile":0.5,"safetyMarginFraction":-0.1})"),
                    {"spec.recommender.cpuPercentile: must be in (0, 1], got 1.500000",
                     "spec.recommender.safetyMarginFraction: must be in [0, 10], got -0.100000",
                     "spec.recommender.lowerBoundPercentile: must not be greater than "
                     "upperBoundPercentile"}},
        ProblemCase{"SelectorOperators",
                    R"({"selector":{"matchExpressions":[{"key":"a","operator":"In"},
                       {"key":"b","operator":"Exists","values":["x"]},{"key":"c","operator":"Near"}]}})",
                    {"spec.selector.matchExpressions[0].values: Required value: must be specified "
                     "when `operator` is 'In' or 'NotIn'",
                     "spec.selector.matchExpressions[1].values: Forbidden: may not be specified "
                     "when `operator` is 'Exists' or 'DoesNotExist'",
                     "spec.selector.matchExpressions[2].operator: Unsupported value: \"Near\": "
                     "supported values: \"In\", \"NotIn\", \"Exists\", \"DoesNotExist\""}}),
    [](const auto& info) { return info.param.name; });

TEST(Validate, ProblemsMessageShowsTheFirstFive) {
  std::vector<std::string> seven{"a", "b", "c", "d", "e", "f", "g"};
  EXPECT_EQ(problems_message(seven), "a; b; c; d; e; and 2 more");
  EXPECT_EQ(problems_message({"only"}), "only");
}

struct VpaModeCase {
  const char* update_mode;  // "" = absent
  std::optional<UpdateMode> expected;
};

TEST(ValidateVpa, UpdateModesAsVpaDefinesThem) {
  std::vector<VpaModeCase> cases{
      {"", UpdateMode::Recreate},         {"Auto", UpdateMode::Recreate},
      {"Recreate", UpdateMode::Recreate}, {"Initial", UpdateMode::Initial},
      {"Off", UpdateMode::Off},           {"InPlaceOrRecreate", UpdateMode::InPlaceOrRecreate},
      {"InPlace", UpdateMode::InPlace},   {"auto", std::nullopt}};
  for (const auto& c : cases) {
    std::string update =
        *c.update_mode ? std::string(R"(,"updatePolicy":{"updateMode":")") + c.update_mode + "\"}"
                       : "";
    Validated v = validate_vpa(std::string("{") + kTarget + update + "}");
    if (c.expected) {
      ASSERT_TRUE(v.policy) << c.update_mode << ": " << problems_message(v.problems);
      EXPECT_EQ(v.policy->mode, *c.expected) << c.update_mode;
      EXPECT_EQ(v.policy->min_replicas, 2);  // the updater's --min-replicas default
      EXPECT_EQ(v.policy->api, PolicyApi::VerticalPodAutoscaler);
    } else {
      EXPECT_FALSE(v.policy) << c.update_mode;
      EXPECT_THAT(v.problems,
                  ElementsAre(HasSubstr("spec.updatePolicy.updateMode: Unsupported value")));
    }
  }
}

// VPA's own wording of its enum (types.go's kubebuilder Enum plus InPlace, VPA 1.7): what
// kubectl shows for a value its CRD refuses, so the condition says the same.
TEST(ValidateVpa, UnsupportedModeListsVpasModes) {
  Validated v =
      validate_vpa(std::string("{") + kTarget + R"(,"updatePolicy":{"updateMode":"Sometimes"}})");
  EXPECT_THAT(v.problems,
              ElementsAre("spec.updatePolicy.updateMode: Unsupported value: \"Sometimes\": "
                          "supported values: \"Off\", \"Initial\", \"Recreate\", "
                          "\"InPlaceOrRecreate\", \"InPlace\", \"Auto\""));
}

TEST(ValidateVpa, RecommendersAndTargetRequired) {
  Validated v = validate_vpa(R"({"recommenders":[{"name":"tailor"},{"name":"x"}]})");
  EXPECT_THAT(v.problems, ElementsAre("spec.targetRef: Required value"));
  Validated ok =
      validate_vpa(std::string("{") + kTarget + R"(,"recommenders":[{"name":"tailor"}]})");
  ASSERT_TRUE(ok.policy);
  EXPECT_THAT(ok.policy->recommenders, ElementsAre("tailor"));
}

// VPA's recommender keeps only the controlled resources in target, lowerBound and upperBound
// (logic/recommender.go FilterControlledResources), so uncappedTarget too.
TEST(OnlyControlled, LeavesTheOtherResourceOutOfEveryField) {
  using kube::Quantity;
  const kube::ResourceList both{{"cpu", Quantity::parse("250m")},
                                {"memory", Quantity::parse("300Mi")}};
  const RecommendedContainerResources r{"app", both, both, both, both};
  EffectiveContainerPolicy memory_only;
  memory_only.controlled_resources = {"memory"};
  const kube::ResourceList memory{{"memory", Quantity::parse("300Mi")}};
  EXPECT_EQ(only_controlled(r, memory_only),
            (RecommendedContainerResources{"app", memory, memory, memory, memory}));
  EffectiveContainerPolicy cpu_only;
  cpu_only.controlled_resources = {"cpu"};
  const kube::ResourceList cpu{{"cpu", Quantity::parse("250m")}};
  EXPECT_EQ(only_controlled(r, cpu_only),
            (RecommendedContainerResources{"app", cpu, cpu, cpu, cpu}));
  EXPECT_EQ(only_controlled(r, EffectiveContainerPolicy{}), r);  // the default: both
}

}  // namespace
}  // namespace tailor::policy

namespace tailor::policy {
namespace {

// Fields of upstream's VerticalPodAutoscaler (deploy/vpa-v1-crd-gen.yaml) that Tailor reads
// nothing of: set, they are accepted without a problem (no ConfigUnsupported, no event) and the
// policy Tailor acts on is the one without them. docs/migrating-from-vpa.md lists them.
TEST(ValidateVpa, FieldsTailorIgnoresAreAcceptedSilently) {
  const std::string known = std::string("{") + kTarget +
                            R"(,"updatePolicy":{"updateMode":"Recreate","minReplicas":3},)"
                            R"("resourcePolicy":{"containerPolicies":[{"containerName":"app",)"
                            R"("minAllowed":{"memory":"64Mi"},"controlledResources":["memory"])";
  const Validated plain = validate_vpa(known + "}]}}");
  const Validated with_ignored = validate_vpa(
      std::string("{") + kTarget +
      R"(,"updatePolicy":{"updateMode":"Recreate","minReplicas":3,"evictAfterOOMSeconds":60,)"
      R"("evictionRequirements":[{"resources":["cpu"],)"
      R"("changeRequirement":"TargetHigherThanRequests"}]},)"
      R"("resourcePolicy":{"containerPolicies":[{"containerName":"app",)"
      R"("minAllowed":{"memory":"64Mi"},"controlledResources":["memory"],)"
      R"("oomBumpUpRatio":"2","oomMinBumpUp":"200Mi","targetCPUPercentile":"0.5",)"
      R"("targetMemoryPercentile":"0.99","memoryAggregationIntervalSeconds":3600,)"
      R"("memoryAggregationIntervalCount":4}]}})");
  ASSERT_TRUE(plain.policy) << problems_message(plain.problems);
  ASSERT_TRUE(with_ignored.policy) << problems_message(with_ignored.problems);
  EXPECT_TRUE(with_ignored.problems.empty());
  const EffectivePolicy& a = *plain.policy;
  const EffectivePolicy& b = *with_ignored.policy;
  EXPECT_EQ(b.mode, a.mode);
  EXPECT_EQ(b.min_replicas, a.min_replicas);
  EXPECT_EQ(b.min_replicas, 3);
  // targetCPUPercentile / targetMemoryPercentile do not become Tailor's percentile overrides.
  EXPECT_EQ(b.recommender.cpu_percentile, std::nullopt);
  EXPECT_EQ(b.recommender.memory_percentile, std::nullopt);
  EXPECT_EQ(b.recommender.lower_bound_percentile, std::nullopt);
  EXPECT_EQ(b.recommender.upper_bound_percentile, std::nullopt);
  EXPECT_EQ(b.recommender.safety_margin_fraction, std::nullopt);
  ASSERT_EQ(b.container_policies.size(), a.container_policies.size());
  for (std::size_t i = 0; i < a.container_policies.size(); ++i) {
    const EffectiveContainerPolicy& x = a.container_policies[i];
    const EffectiveContainerPolicy& y = b.container_policies[i];
    EXPECT_EQ(y.container_name, x.container_name);
    EXPECT_EQ(y.mode, x.mode);
    EXPECT_EQ(y.min_allowed, x.min_allowed);
    EXPECT_EQ(y.max_allowed, x.max_allowed);
    EXPECT_EQ(y.controlled_resources, x.controlled_resources);
    EXPECT_EQ(y.controlled_values, x.controlled_values);
    EXPECT_EQ(y.cpu_boost, x.cpu_boost);
  }
}

}  // namespace
}  // namespace tailor::policy
