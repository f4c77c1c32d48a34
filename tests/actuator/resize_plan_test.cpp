#include "actuator/resize_plan.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fixtures.h"

namespace tailor::actuator {
namespace {

using namespace testing_support;

struct PlanCase {
  const char* name;
  std::vector<kube::Container> containers;
  std::vector<policy::RecommendedContainerResources> recommendations;
  std::vector<policy::ContainerResourcePolicy> container_policies;
  std::string allocatable;
  std::vector<std::string> hpa;
  std::string ratio;    // LimitRange maxLimitRequestRatio
  const char* body;     // "" when no resize is sent
  const char* blocked;  // "" when not blocked
  std::vector<std::string> notes;
};

policy::EffectivePolicy with_containers(const std::vector<policy::ContainerResourcePolicy>& in) {
  policy::VerticalScalingPolicy vsp;
  vsp.metadata.name = "web";
  vsp.spec.target_ref = policy::CrossVersionObjectReference{"apps/v1", "Deployment", "web"};
  vsp.spec.resource_policy.container_policies = in;
  auto v = policy::validate(vsp);
  EXPECT_TRUE(v.policy) << policy::problems_message(v.problems);
  return v.policy ? *v.policy : policy::EffectivePolicy{};
}

policy::ContainerResourcePolicy only(const char* name, const char* mode, const char* values,
                                     std::optional<std::vector<std::string>> resources = {}) {
  policy::ContainerResourcePolicy p;
  p.container_name = name;
  p.mode = mode;
  p.controlled_values = values;
  p.controlled_resources = std::move(resources);
  return p;
}

class PlanResize : public testing::TestWithParam<PlanCase> {};

TEST_P(PlanResize, Table) {
  const PlanCase& c = GetParam();
  kube::Pod pod = running_pod(c.containers);
  policy::EffectivePolicy policy = with_containers(c.container_policies);
  LimitRangeItem range;
  range.type = "Container";
  range.max_limit_request_ratio = rl(c.ratio);
  ResizeInputs in{
      &pod, &policy, c.recommendations, c.ratio.empty() ? nullptr : &range, rl(c.allocatable),
      c.hpa};
  ResizePlan plan = plan_resize(in);
  EXPECT_EQ(plan.blocked, c.blocked);
  if (*c.body) {
    ASSERT_FALSE(plan.empty());
    EXPECT_EQ(plan.body(), c.body);
  } else {
    EXPECT_TRUE(plan.empty());
  }
  EXPECT_EQ(plan.notes, c.notes);
}

INSTANTIATE_TEST_SUITE_P(
    Actuator, PlanResize,
    testing::Values(
        PlanCase{
            "LimitsKeepTheirRatio",
            {container("app", "cpu=100m,memory=128Mi", "cpu=200m,memory=256Mi")},
            {recommendation("app", "cpu=300m,memory=256Mi")},
            {},
            "",
            {},
            "",
            R"({"spec":{"containers":[{"name":"app","resources":{"limits":{"cpu":"600m","memory":"512Mi"},"requests":{"cpu":"300m","memory":"256Mi"}}}]}})",
            "",
            {}},
        PlanCase{
            "GuaranteedStaysGuaranteed",
            {container("app", "cpu=1,memory=1Gi", "cpu=1,memory=1Gi")},
            {recommendation("app", "cpu=500m,memory=2Gi")},
            {},
            "",
            {},
            "",
            R"({"spec":{"containers":[{"name":"app","resources":{"limits":{"cpu":"500m","memory":"2Gi"},"requests":{"cpu":"500m","memory":"2Gi"}}}]}})",
            "",
            {}},
        PlanCase{"RequestsOnlyOnGuaranteedWouldChangeQos",
                 {container("app", "cpu=1,memory=1Gi", "cpu=1,memory=1Gi")},
                 {recommendation("app", "cpu=500m,memory=1Gi")},
                 {only("*", "Auto", "RequestsOnly")},
                 "",
                 {},
                 "",
                 "",
                 "Pod QOS Class may not change as a result of resizing: this resize would make "
                 "the pod Burstable, it is Guaranteed",
                 {}},
        PlanCase{
            "RequestsOnlyCappedAtTheLimit",
            {container("app", "cpu=100m", "cpu=1")},
            {recommendation("app", "cpu=2")},
            {only("*", "Auto", "RequestsOnly")},
            "",
            {},
            "",
            R"({"spec":{"containers":[{"name":"app","resources":{"limits":{"cpu":"1"},"requests":{"cpu":"1"}}}]}})",
            "",
            {"app cpu: request capped to the container's limit 1"}},
        PlanCase{"BestEffortCannotGainRequests",
                 {container("app", "")},
                 {recommendation("app", "cpu=100m,memory=100Mi")},
                 {},
                 "",
                 {},
                 "",
                 "",
                 "Pod QOS Class may not change as a result of resizing: this resize would make "
                 "the pod Burstable, it is BestEffort",
                 {}},
        PlanCase{
            "FitsTheLargestNode",
            {container("app", "cpu=500m"), container("side", "cpu=500m")},
            {recommendation("app", "cpu=3"), recommendation("side", "cpu=1")},
            {only("side", "Off", "")},
            "cpu=2",
            {},
            "",
            R"({"spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":"1500m"}}}]}})",
            "",
            {"cpu: capped to fit the largest node's allocatable 2"}},
        // Each resource is fitted on its own total: capping cpu leaves memory's to be capped too.
        PlanCase{
            "FitsTheLargestNodeInCpuAndMemory",
            {container("app", "cpu=500m,memory=1Gi"), container("side", "cpu=500m,memory=1Gi")},
            {recommendation("app", "cpu=3,memory=5Gi")},
            {},
            "cpu=2,memory=4Gi",
            {},
            "",
            R"({"spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":"1500m","memory":"3Gi"}}}]}})",
            "",
            {"cpu: capped to fit the largest node's allocatable 2",
             "memory: capped to fit the largest node's allocatable 4Gi"}},
        PlanCase{
            "HpaResourceLeftAlone",
            {container("app", "cpu=100m,memory=100Mi")},
            {recommendation("app", "cpu=1,memory=200Mi")},
            {},
            "",
            {"cpu"},
            "",
            R"({"spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":"100m","memory":"200Mi"}}}]}})",
            "",
            {}},
        // A ContainerResource metric: only that container's cpu is the HPA's.
        PlanCase{
            "HpaContainerResourceOnlyThatContainer",
            {container("app", "cpu=100m"), container("side", "cpu=100m")},
            {recommendation("app", "cpu=1"), recommendation("side", "cpu=200m")},
            {},
            "",
            {"app/cpu"},
            "",
            R"({"spec":{"containers":[{"name":"side","resources":{"requests":{"cpu":"200m"}}}]}})",
            "",
            {}},
        PlanCase{
            "ControlledResourcesOnly",
            {container("app", "cpu=100m,memory=100Mi")},
            {recommendation("app", "cpu=1,memory=200Mi")},
            {only("app", "Auto", "", std::vector<std::string>{"memory"})},
            "",
            {},
            "",
            R"({"spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":"100m","memory":"200Mi"}}}]}})",
            "",
            {}},
        PlanCase{
            "UnchangedContainersAreNotSent",
            {container("app", "cpu=100m"), container("other", "cpu=100m")},
            {recommendation("app", "cpu=200m"), recommendation("other", "cpu=100m")},
            {},
            "",
            {},
            "",
            R"({"spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":"200m"}}}]}})",
            "",
            {}},
        PlanCase{"NothingToDo",
                 {container("app", "cpu=100m")},
                 {recommendation("app", "cpu=100m")},
                 {},
                 "",
                 {},
                 "",
                 "",
                 "",
                 {}},
        PlanCase{
            "MaxLimitRequestRatio",
            {container("app", "cpu=100m", "cpu=1")},
            {recommendation("app", "cpu=200m")},
            {},
            "",
            {},
            "cpu=4",
            R"({"spec":{"containers":[{"name":"app","resources":{"limits":{"cpu":"800m"},"requests":{"cpu":"200m"}}}]}})",
            "",
            {"app cpu: limit capped to the LimitRange's maxLimitRequestRatio 4"}},
        // The 2:1 limit of a 3Gi request would be 6Gi; no node has more than 4Gi.
        PlanCase{
            "LimitWithinTheLargestNode",
            {container("app", "cpu=500m,memory=1Gi", "cpu=1,memory=2Gi")},
            {recommendation("app", "cpu=1,memory=3Gi")},
            {},
            "cpu=4,memory=4Gi",
            {},
            "",
            R"({"spec":{"containers":[{"name":"app","resources":{"limits":{"cpu":"2","memory":"4Gi"},"requests":{"cpu":"1","memory":"3Gi"}}}]}})",
            "",
            {"app memory: limit capped to the largest node's allocatable 4Gi"}},
        // A limit the user set above the node already is theirs: not raised further, not cut.
        PlanCase{
            "OwnLimitAboveTheNodeIsKept",
            {container("app", "cpu=500m", "cpu=8")},
            {recommendation("app", "cpu=1")},
            {},
            "cpu=4",
            {},
            "",
            R"({"spec":{"containers":[{"name":"app","resources":{"limits":{"cpu":"8"},"requests":{"cpu":"1"}}}]}})",
            "",
            {"app cpu: limit kept at the container's limit 8, above the largest node's "
             "allocatable 4"}},
        // RequestsOnly: the limit is not Tailor's to move, whatever the node.
        PlanCase{
            "RequestsOnlyLimitAboveTheNodeUntouched",
            {container("app", "cpu=500m", "cpu=8")},
            {recommendation("app", "cpu=1")},
            {only("*", "Auto", "RequestsOnly")},
            "cpu=4",
            {},
            "",
            R"({"spec":{"containers":[{"name":"app","resources":{"limits":{"cpu":"8"},"requests":{"cpu":"1"}}}]}})",
            "",
            {}}),
    [](const auto& info) { return info.param.name; });

TEST(PlanResizeDirection, ScaleUpAndDown) {
  kube::Pod pod = running_pod({container("a", "cpu=1,memory=1Gi"), container("b", "cpu=1")});
  policy::EffectivePolicy policy = default_policy();
  ResizePlan plan = plan_resize(ResizeInputs{
      &pod, &policy, {recommendation("a", "cpu=2,memory=512Mi"), recommendation("b", "cpu=500m")}});
  ASSERT_EQ(plan.changes.size(), 2u);
  EXPECT_TRUE(plan.changes[0].increases_requests());
  EXPECT_TRUE(plan.changes[0].decreases_requests());
  EXPECT_FALSE(plan.changes[1].increases_requests());
  EXPECT_TRUE(plan.scale_up());
  EXPECT_EQ(plan.patch().containers.size(), 2u);
}

}  // namespace
}  // namespace tailor::actuator

namespace tailor::actuator {
namespace {

using namespace testing_support;

TEST(PlanAtCreation, DefaultLimitsScaleAndQosMayChange) {
  kube::Pod pod = running_pod({container("app", "")});
  pod.status = {};
  policy::EffectivePolicy policy = default_policy();
  LimitRangeItem range;
  range.type = "Container";
  range.default_limit = rl("memory=512Mi");
  ResizeInputs in{&pod, &policy, {recommendation("app", "cpu=250m,memory=256Mi")}, &range};
  ResizePlan running = plan_resize(in);
  EXPECT_TRUE(running.empty());
  EXPECT_NE(running.blocked, "");
  in.at_creation = true;
  ResizePlan created = plan_resize(in);
  ASSERT_EQ(created.changes.size(), 1u);
  EXPECT_EQ(created.changes[0].after.requests, rl("cpu=250m,memory=256Mi"));
  // No original request: a default limit alone means limit = request (VPA's rule).
  EXPECT_EQ(created.changes[0].after.limits, rl("memory=256Mi"));
  pod.spec.containers[0] = container("app", "memory=128Mi");
  ResizePlan with_request = plan_resize(in);
  ASSERT_EQ(with_request.changes.size(), 1u);
  EXPECT_EQ(with_request.changes[0].after.limits, rl("memory=1Gi"));
}

}  // namespace
}  // namespace tailor::actuator

namespace tailor::actuator {
namespace {

using namespace testing_support;

TEST(RestartsContainers, OnlyForAChangedResourceWithRestartContainer) {
  kube::Pod pod = running_pod({container("app", "cpu=100m,memory=100Mi")});
  pod.spec.containers[0].resize_policy = {{"cpu", "NotRequired"}, {"memory", "RestartContainer"}};
  policy::EffectivePolicy policy = default_policy();
  ResizePlan cpu_only =
      plan_resize(ResizeInputs{&pod, &policy, {recommendation("app", "cpu=200m,memory=100Mi")}});
  ASSERT_FALSE(cpu_only.empty());
  EXPECT_FALSE(restarts_containers(pod, cpu_only));
  ResizePlan memory =
      plan_resize(ResizeInputs{&pod, &policy, {recommendation("app", "cpu=100m,memory=200Mi")}});
  ASSERT_FALSE(memory.empty());
  EXPECT_TRUE(restarts_containers(pod, memory));
}

}  // namespace
}  // namespace tailor::actuator
