#include "policy/decode.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kube/model/decode.h"

namespace tailor::policy {
namespace {

using kube::Quantity;

constexpr const char* kSketch = R"({
  "apiVersion": "autoscaling.tailor.dev/v1alpha1", "kind": "VerticalScalingPolicy",
  "metadata": {"name": "web", "namespace": "shop", "creationTimestamp": "2026-01-02T03:04:05Z"},
  "spec": {
    "targetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
    "updatePolicy": {"mode": "InPlaceOrRecreate", "minReplicas": 1, "deferredTimeout": "5m",
                     "inProgressTimeout": "1h"},
    "resourcePolicy": {"containerPolicies": [{
      "containerName": "*", "mode": "Auto", "minAllowed": {"cpu": "50m", "memory": "64Mi"},
      "maxAllowed": {"cpu": "4", "memory": "8Gi"}, "controlledResources": ["cpu", "memory"],
      "controlledValues": "RequestsAndLimits"}]},
    "recommender": {"cpuPercentile": 0.9, "safetyMarginFraction": 0.15, "unknown": [1, 2]}
  },
  "status": {
    "recommendation": {"containerRecommendations": [{"containerName": "app",
      "target": {"cpu": "250m", "memory": "300Mi"}, "lowerBound": {"cpu": "100m"},
      "upperBound": {"cpu": 1}, "uncappedTarget": {"cpu": "250m"}}]},
    "conditions": [{"type": "RecommendationProvided", "status": "True",
                    "lastTransitionTime": "2026-01-02T03:05:00Z"}]
  }
})";

TEST(DecodePolicy, ReadsTheSpecSketchWhole) {
  VerticalScalingPolicy p = decode_vertical_scaling_policy_or_throw(kSketch);
  EXPECT_EQ(p.metadata.name, "web");
  EXPECT_EQ(p.metadata.namespace_, "shop");
  ASSERT_TRUE(p.spec.target_ref);
  EXPECT_EQ(p.spec.target_ref->kind, "Deployment");
  EXPECT_EQ(p.spec.update_policy.mode, "InPlaceOrRecreate");
  EXPECT_EQ(p.spec.update_policy.min_replicas, 1);
  EXPECT_EQ(p.spec.update_policy.deferred_timeout, "5m");
  ASSERT_EQ(p.spec.resource_policy.container_policies.size(), 1u);
  const auto& c = p.spec.resource_policy.container_policies[0];
  EXPECT_EQ(c.container_name, "*");
  EXPECT_EQ(c.min_allowed.at("cpu"), Quantity::parse("50m"));
  EXPECT_EQ(c.max_allowed.at("memory"), Quantity::parse("8Gi"));
  EXPECT_EQ(c.controlled_resources, (std::vector<std::string>{"cpu", "memory"}));
  EXPECT_EQ(p.spec.recommender.cpu_percentile, 0.9);
  EXPECT_FALSE(p.spec.recommender.memory_percentile);
  ASSERT_TRUE(p.status.recommendation);
  const auto& r = p.status.recommendation->container_recommendations.at(0);
  EXPECT_EQ(r.target.at("memory"), Quantity::parse("300Mi"));
  EXPECT_EQ(r.upper_bound.at("cpu"), Quantity::parse("1"));
  EXPECT_EQ(p.status.conditions.at(0).last_transition_time, "2026-01-02T03:05:00Z");
}

TEST(DecodePolicy, ReadsUpstreamVpa) {
  auto d = decode_vertical_pod_autoscaler(R"({
    "apiVersion": "autoscaling.k8s.io/v1", "kind": "VerticalPodAutoscaler",
    "metadata": {"name": "hamster-vpa", "namespace": "default"},
    "spec": {"targetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "hamster"},
             "updatePolicy": {"updateMode": "Auto", "minReplicas": 2},
             "recommenders": [{"name": "custom"}],
             "resourcePolicy": {"containerPolicies": [{"containerName": "*",
                "controlledValues": "RequestsOnly", "maxAllowed": {"memory": "1Gi"}}]}}})");
  ASSERT_TRUE(d.ok()) << d.error;
  EXPECT_EQ(d.object.spec.update_policy->update_mode, "Auto");
  EXPECT_EQ(d.object.spec.recommenders.at(0).name, "custom");
  EXPECT_EQ(d.object.spec.resource_policy->container_policies.at(0).controlled_values,
            "RequestsOnly");
  EXPECT_FALSE(d.object.spec.resource_policy->container_policies.at(0).controlled_resources);
}

struct BadCase {
  const char* name;
  const char* json;
  const char* error;  // how the message starts
};

class DecodeErrors : public testing::TestWithParam<BadCase> {};

TEST_P(DecodeErrors, ReportThePathAndKeepTheMetadata) {
  auto d = decode_vertical_scaling_policy(GetParam().json);
  EXPECT_FALSE(d.ok());
  EXPECT_THAT(d.error, testing::StartsWith(GetParam().error));
  EXPECT_EQ(d.object.metadata.name, "p");
  EXPECT_THROW(decode_vertical_scaling_policy_or_throw(GetParam().json), kube::DecodeError);
}

INSTANTIATE_TEST_SUITE_P(
    Policy, DecodeErrors,
    testing::Values(
        BadCase{"BadQuantity",
                R"({"metadata":{"name":"p"},"spec":{"resourcePolicy":{"containerPolicies":[
                  {"containerName":"a"},{"containerName":"b","minAllowed":{"cpu":"1x"}}]}}})",
                "spec.resourcePolicy.containerPolicies[1].minAllowed.cpu: invalid quantity \"1x\""},
        BadCase{"MinReplicasNotInteger",
                R"({"metadata":{"name":"p"},"spec":{"updatePolicy":{"minReplicas":"two"}}})",
                "spec.updatePolicy.minReplicas: expected an integer, got string"},
        BadCase{"PercentileNotNumber",
                R"({"metadata":{"name":"p"},"spec":{"recommender":{"cpuPercentile":true}}})",
                "spec.recommender.cpuPercentile: expected a number, got boolean"},
        BadCase{"ControlledResourcesNotArray",
                R"({"metadata":{"name":"p"},"spec":{"resourcePolicy":{"containerPolicies":[
                  {"containerName":"a","controlledResources":"cpu"}]}}})",
                "spec.resourcePolicy.containerPolicies[0].controlledResources: expected an "
                "array, got string"}),
    [](const auto& info) { return info.param.name; });

TEST(DecodePolicy, MalformedJsonIsAnErrorNotACrash) {
  auto d = decode_vertical_scaling_policy(R"({"metadata":{"name":"p"},"spec":{)");
  EXPECT_FALSE(d.ok());
  EXPECT_NE(d.error.find("JSON"), std::string::npos) << d.error;
  auto root = decode_vertical_scaling_policy("[1]");
  EXPECT_EQ(root.error, "expected an object, got array");
}

TEST(DecodePolicy, NullsAreAbsent) {
  auto p = decode_vertical_scaling_policy_or_throw(
      R"({"metadata":{"name":"p"},"spec":{"targetRef":null,"recommender":{"cpuPercentile":null},
          "resourcePolicy":{"containerPolicies":[{"containerName":"a","controlledResources":null}]}}})");
  EXPECT_FALSE(p.spec.target_ref);
  EXPECT_FALSE(p.spec.recommender.cpu_percentile);
  EXPECT_FALSE(p.spec.resource_policy.container_policies.at(0).controlled_resources);
}

}  // namespace
}  // namespace tailor::policy
