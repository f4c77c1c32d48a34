// startupBoost on both kinds: decoded as VPA 1.7's CRD defines it, validated with the CRD's and
// Kubernetes' words, and the container's own boost before the spec's.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "policy/decode.h"
#include "policy/effective.h"

namespace tailor::policy {
namespace {

using testing::ElementsAre;

constexpr const char* kTarget =
    R"("targetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"})";

Validated validate_vsp(const std::string& rest) {
  return validate(decode_vertical_scaling_policy_or_throw(
      R"({"metadata":{"name":"p","namespace":"ns"},"spec":{)" + std::string(kTarget) + rest +
      "}}"));
}

Validated validate_vpa(const std::string& rest) {
  return validate(decode_vertical_pod_autoscaler_or_throw(
      R"({"metadata":{"name":"v","namespace":"ns"},"spec":{)" + std::string(kTarget) + rest +
      "}}"));
}

TEST(StartupBoost, FactorOnTheSpecAppliesToEveryContainer) {
  for (auto validated : {validate_vsp, validate_vpa}) {
    Validated v =
        validated(R"(,"startupBoost":{"cpu":{"type":"Factor","factor":3,"durationSeconds":10}})");
    ASSERT_TRUE(v.policy) << problems_message(v.problems);
    std::optional<CpuBoost> b = cpu_boost_for(*v.policy, "app");
    ASSERT_TRUE(b);
    EXPECT_EQ(b->kind, CpuBoost::Kind::Factor);
    EXPECT_EQ(b->factor, 3);
    EXPECT_EQ(b->duration, std::chrono::seconds(10));
  }
}

TEST(StartupBoost, ContainerPolicyOverridesTheSpecAndFactorOneTurnsItOff) {
  Validated v = validate_vpa(
      R"(,"startupBoost":{"cpu":{"type":"Factor","factor":2}},"resourcePolicy":{
      "containerPolicies":[{"containerName":"sidecar","startupBoost":{"cpu":{"type":"Factor","factor":1}}},
      {"containerName":"jvm","mode":"Off","startupBoost":{"cpu":{"type":"Quantity","quantity":"2"}}}]})");
  ASSERT_TRUE(v.policy) << problems_message(v.problems);
  EXPECT_FALSE(cpu_boost_for(*v.policy, "sidecar"));
  std::optional<CpuBoost> jvm = cpu_boost_for(*v.policy, "jvm");
  ASSERT_TRUE(jvm);
  EXPECT_EQ(jvm->kind, CpuBoost::Kind::Quantity);
  EXPECT_EQ(jvm->quantity, kube::Quantity::parse("2"));
  EXPECT_EQ(jvm->duration, std::chrono::seconds(0));  // the default
  std::optional<CpuBoost> other = cpu_boost_for(*v.policy, "app");
  ASSERT_TRUE(other);
  EXPECT_EQ(other->factor, 2);
}

TEST(StartupBoost, NoBoostWhenNoneIsSet) {
  Validated v = validate_vsp("");
  ASSERT_TRUE(v.policy);
  EXPECT_FALSE(cpu_boost_for(*v.policy, "app"));
}

struct BadBoost {
  const char* boost;
  const char* problem;
};

class BadBoosts : public testing::TestWithParam<BadBoost> {};

TEST_P(BadBoosts, AreRefusedWithThePathAndNoPolicy) {
  for (auto validated : {validate_vsp, validate_vpa}) {
    Validated v = validated(std::string(R"(,"startupBoost":{"cpu":)") + GetParam().boost + "}");
    EXPECT_FALSE(v.policy);
    EXPECT_THAT(v.problems, ElementsAre(GetParam().problem));
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, BadBoosts,
    testing::Values(
        BadBoost{R"({"factor":2})", "spec.startupBoost.cpu.type: Required value"},
        BadBoost{R"({"type":"Percent"})",
                 "spec.startupBoost.cpu.type: Unsupported value: \"Percent\": supported values: "
                 "\"Factor\", \"Quantity\""},
        BadBoost{R"({"type":"Factor"})",
                 "spec.startupBoost.cpu: Invalid value: factor is required when type "
                 "is Factor and forbidden otherwise"},
        BadBoost{R"({"type":"Quantity","quantity":"1","factor":2})",
                 "spec.startupBoost.cpu: Invalid value: factor is required when type "
                 "is Factor and forbidden otherwise"},
        BadBoost{R"({"type":"Factor","factor":2,"quantity":"1"})",
                 "spec.startupBoost.cpu: Invalid value: quantity is required when "
                 "type is Quantity and forbidden otherwise"},
        BadBoost{R"({"type":"Factor","factor":0})",
                 "spec.startupBoost.cpu.factor: Invalid value: 0: must be greater than or equal "
                 "to 1"},
        BadBoost{R"({"type":"Quantity","quantity":"-1"})",
                 "spec.startupBoost.cpu.quantity: Invalid value: \"-1\": must be greater than 0"},
        BadBoost{R"({"type":"Factor","factor":2,"durationSeconds":-5})",
                 "spec.startupBoost.cpu.durationSeconds: Invalid value: -5: must be greater than "
                 "or equal to 0"}));

TEST(StartupBoost, ContainerPolicyProblemsCarryTheirPath) {
  Validated v = validate_vsp(
      R"(,"resourcePolicy":{"containerPolicies":[{"containerName":"app","startupBoost":{"cpu":{"type":"Factor"}}}]})");
  EXPECT_FALSE(v.policy);
  EXPECT_THAT(v.problems,
              ElementsAre("spec.resourcePolicy.containerPolicies[0].startupBoost.cpu: Invalid "
                          "value: factor is required when type is Factor and "
                          "forbidden otherwise"));
}

TEST(StartupBoost, DecodeErrorsNameTheField) {
  auto d = decode_vertical_pod_autoscaler(
      R"({"metadata":{"name":"v"},"spec":{"startupBoost":{"cpu":{"type":"Factor","factor":"two"}}}})");
  EXPECT_FALSE(d.ok());
  EXPECT_THAT(d.error, testing::StartsWith("spec.startupBoost.cpu.factor"));
  EXPECT_EQ(d.object.metadata.name, "v");
}

}  // namespace
}  // namespace tailor::policy
