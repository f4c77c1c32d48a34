#include "actuator/pod_decision.h"

#include <gtest/gtest.h>

#include "actuator/resize_error.h"
#include "fixtures.h"

namespace tailor::actuator {
namespace {

using namespace testing_support;
using policy::UpdateMode;
using std::chrono::minutes;

kube::TimePoint at(int minute) {
  return kube::parse_rfc3339("2026-01-01T00:00:00Z") + minutes(minute);
}

struct World {
  kube::Pod pod = running_pod({container("app", "cpu=100m,memory=100Mi", "cpu=200m,memory=200Mi")});
  policy::EffectivePolicy policy = default_policy();
  std::vector<policy::RecommendedContainerResources> recs{
      recommendation("app", "cpu=1,memory=100Mi", "cpu=500m,memory=50Mi", "cpu=2,memory=1Gi")};
  std::optional<ResizeState> in_flight{};

  // The strategy's chosen requests (UpdateRule::Mode::StrategyDecides when not empty).
  std::vector<policy::RecommendedContainerResources> decided{};

  PodDecision decide_at(int minute) {
    const PodFacts facts = pod_facts(pod);
    UpdateRule rule;
    if (!decided.empty()) rule.mode = UpdateRule::Mode::StrategyDecides;
    return decide(PodInputs{&facts,
                            &policy,
                            recs,
                            nullptr,
                            {},
                            {},
                            at(minute),
                            std::nullopt,
                            in_flight ? &*in_flight : nullptr,
                            rule,
                            decided});
  }
};

TEST(Decide, OutsideBoundsResizesInPlace) {
  World w;
  PodDecision d = w.decide_at(1);
  EXPECT_EQ(d.step, PodStep::Resize) << d.reason;
  EXPECT_EQ(d.reason, "OutsideBounds");
  EXPECT_EQ(
      d.plan.body(),
      R"({"spec":{"containers":[{"name":"app","resources":{"limits":{"cpu":"2","memory":"200Mi"},"requests":{"cpu":"1","memory":"100Mi"}}}]}})");
}

// The case of issue 15: a container OOM-killed at its 300Mi limit whose model has not heard of
// the kill recommends less. Its limit must not go down; cpu may still change.
TEST(Decide, NeverLowersTheMemoryOfARecentlyOomKilledContainer) {
  World w;
  w.pod = running_pod({container("app", "cpu=100m,memory=300Mi", "cpu=200m,memory=300Mi")});
  kube::ContainerStatus s;
  s.name = "app";
  s.restart_count = 1;
  s.last_state.terminated =
      kube::ContainerStateTerminated{137, 0, "OOMKilled", "", "", "2026-01-01T00:05:00Z"};
  w.pod.status.container_statuses.push_back(s);
  w.recs = {
      recommendation("app", "cpu=1,memory=279Mi", "cpu=500m,memory=200Mi", "cpu=2,memory=290Mi")};
  PodDecision d = w.decide_at(10);
  EXPECT_EQ(d.step, PodStep::Resize) << d.reason;
  EXPECT_EQ(
      d.plan.body(),
      R"({"spec":{"containers":[{"name":"app","resources":{"limits":{"cpu":"2","memory":"300Mi"},"requests":{"cpu":"1","memory":"300Mi"}}}]}})");
  // Three days later the hold is over and memory follows the model.
  PodDecision later = w.decide_at(6 + 72 * 60);
  EXPECT_EQ(later.step, PodStep::Resize) << later.reason;
  EXPECT_NE(later.plan.body().find(R"("memory":"279Mi")"), std::string::npos) << later.plan.body();
}

// In place, the strategy's own rule decides: its requests are applied as they are, whatever the
// target rule would say (here: within the bounds, a minute old), and no change it did not choose
// is made.
TEST(Decide, StrategyDecidesInPlace) {
  World w;
  w.recs = {
      recommendation("app", "cpu=105m,memory=100Mi", "cpu=50m,memory=50Mi", "cpu=2,memory=1Gi")};
  w.decided = {recommendation("app", "cpu=360m,memory=100Mi")};
  PodDecision d = w.decide_at(1);
  EXPECT_EQ(d.step, PodStep::Resize) << d.reason;
  EXPECT_EQ(d.reason, "StrategyRule");
  EXPECT_TRUE(d.priority.scale_up);
  EXPECT_NE(d.plan.body().find(R"("requests":{"cpu":"360m","memory":"100Mi"})"), std::string::npos)
      << d.plan.body();
  w.decided = {recommendation("app", "cpu=100m,memory=100Mi")};  // the pod's own requests
  EXPECT_EQ(w.decide_at(1).step, PodStep::Nothing);
  // The target rule would resize now (outside the bounds); the strategy keeps the requests.
  w.recs = {
      recommendation("app", "cpu=1,memory=100Mi", "cpu=500m,memory=50Mi", "cpu=2,memory=1Gi")};
  EXPECT_EQ(w.decide_at(1).step, PodStep::Nothing);
}

// A pod that can only be recreated is not evicted for each move the strategy makes in place: the
// target rule decides (here: within the bounds, so nothing).
TEST(Decide, StrategyDecidesNotForRecreations) {
  World w;
  w.policy.mode = UpdateMode::Recreate;
  w.recs = {
      recommendation("app", "cpu=105m,memory=100Mi", "cpu=50m,memory=50Mi", "cpu=2,memory=1Gi")};
  w.decided = {recommendation("app", "cpu=360m,memory=100Mi")};
  EXPECT_EQ(w.decide_at(1).step, PodStep::Nothing);
  w.recs = {
      recommendation("app", "cpu=1,memory=100Mi", "cpu=500m,memory=50Mi", "cpu=2,memory=1Gi")};
  PodDecision d = w.decide_at(1);
  EXPECT_EQ(d.step, PodStep::Recreate);
  EXPECT_EQ(d.reason, "OutsideBounds");
}

// The OOM hold stands under the strategy's rule too: memory of a container killed lately is not
// lowered, and the kill is the reason.
TEST(Decide, StrategyDecidesKeepsTheOomHold) {
  World w;
  w.pod = running_pod({container("app", "cpu=100m,memory=300Mi", "cpu=200m,memory=300Mi")});
  kube::ContainerStatus s;
  s.name = "app";
  s.restart_count = 1;
  s.last_state.terminated =
      kube::ContainerStateTerminated{137, 0, "OOMKilled", "", "", "2026-01-01T00:05:00Z"};
  w.pod.status.container_statuses.push_back(s);
  w.decided = {recommendation("app", "cpu=100m,memory=200Mi")};
  EXPECT_EQ(w.decide_at(10).step, PodStep::Nothing);
  w.decided = {recommendation("app", "cpu=100m,memory=450Mi")};
  PodDecision d = w.decide_at(10);
  EXPECT_EQ(d.step, PodStep::Resize);
  EXPECT_EQ(d.reason, "OOMKilled");
}

// A recreation that would give the pod what it has (RequestsOnly: the request already at its
// limit, the target above it) is not made: the replacement would be evicted again, forever.
TEST(Decide, NoRecreationThatChangesNothing) {
  World w;
  w.policy.mode = UpdateMode::Recreate;
  w.pod = running_pod({container("app", "cpu=100m,memory=100Mi", "cpu=100m,memory=200Mi")});
  w.policy.container_policies = {
      policy::EffectiveContainerPolicy{"*",
                                       policy::ContainerMode::Auto,
                                       {},
                                       {},
                                       {"cpu", "memory"},
                                       policy::ControlledValues::RequestsOnly}};
  w.recs = {
      recommendation("app", "cpu=115m,memory=100Mi", "cpu=105m,memory=50Mi", "cpu=2,memory=1Gi")};
  PodDecision d = w.decide_at(1);
  EXPECT_EQ(d.step, PodStep::Nothing) << d.reason;
  w.recs = {
      recommendation("app", "cpu=115m,memory=150Mi", "cpu=105m,memory=120Mi", "cpu=2,memory=1Gi")};
  EXPECT_EQ(w.decide_at(1).step, PodStep::Recreate);  // memory can still grow
}

TEST(Decide, ModesDecideTheWay) {
  World w;
  w.policy.mode = UpdateMode::Recreate;
  EXPECT_EQ(w.decide_at(1).step, PodStep::Recreate);
  w.policy.mode = UpdateMode::Off;
  PodDecision off = w.decide_at(1);
  EXPECT_EQ(off.step, PodStep::Nothing);
  EXPECT_EQ(off.reason, "update mode Off: recommendations only");
  w.policy.mode = UpdateMode::InPlaceOrRecreate;
  w.pod.spec.os_name = "windows";
  PodDecision windows = w.decide_at(1);
  EXPECT_EQ(windows.step, PodStep::Recreate);
  EXPECT_EQ(windows.reason,
            "OutsideBounds; Windows pod: in-place resize is not supported on Windows");
}

TEST(Decide, WithinTheRuleNothing) {
  World w;
  w.recs = {
      recommendation("app", "cpu=105m,memory=100Mi", "cpu=50m,memory=50Mi", "cpu=2,memory=1Gi")};
  EXPECT_EQ(w.decide_at(600).step, PodStep::Nothing);
}

TEST(Decide, QosBlockedFallsBackToRecreationWhenAllowed) {
  World w;
  w.pod = running_pod({container("app", "cpu=1,memory=1Gi", "cpu=1,memory=1Gi")});
  w.policy.container_policies = {
      policy::EffectiveContainerPolicy{"*",
                                       policy::ContainerMode::Auto,
                                       {},
                                       {},
                                       {"cpu", "memory"},
                                       policy::ControlledValues::RequestsOnly}};
  w.recs = {recommendation("app", "cpu=3,memory=1Gi", "cpu=2", "cpu=4")};
  PodDecision d = w.decide_at(1);
  EXPECT_EQ(d.step, PodStep::Nothing);  // RequestsOnly: request capped at the limit, no change
  w.recs = {recommendation("app", "cpu=500m,memory=1Gi", "cpu=100m", "cpu=600m")};
  d = w.decide_at(1);
  EXPECT_EQ(d.step, PodStep::Recreate);
  EXPECT_EQ(d.reason.rfind("Pod QOS Class may not change as a result of resizing", 0), 0u);
  w.policy.mode = UpdateMode::InPlace;
  EXPECT_EQ(w.decide_at(1).step, PodStep::Nothing);
}

TEST(Decide, InFlightResizeIsFollowed) {
  World w;
  w.in_flight = ResizeState{"uid-web-1", 2, ResizeStatus::Proposed, "", at(0), at(0), {}};
  w.pod.metadata.generation = 2;
  w.pod.status.conditions = {{std::string(kube::kPodResizePending), "True", "Deferred",
                              "Node didn't have enough resource: cpu", "", "", 2}};
  PodDecision d = w.decide_at(1);
  EXPECT_EQ(d.step, PodStep::Wait);
  EXPECT_EQ(d.wake_at, at(6));
  EXPECT_EQ(w.decide_at(7).step, PodStep::Recreate);
  // Settled (runtime reports the spec): the pod is evaluated afresh and the state can go.
  w.pod.status.conditions.clear();
  kube::ContainerStatus s;
  s.name = "app";
  s.resources = w.pod.spec.containers[0].resources;
  w.pod.status.container_statuses = {s};
  PodDecision fresh = w.decide_at(8);
  EXPECT_TRUE(fresh.forget_in_flight);
  EXPECT_EQ(fresh.step, PodStep::Resize);
}

TEST(Decide, InPlaceInfeasibleResendsOnlyWhenTheRecommendationDrops) {
  World w;
  w.policy.mode = UpdateMode::InPlace;
  w.in_flight = ResizeState{"uid-web-1", 2,     ResizeStatus::Infeasible, "",
                            at(0),       at(0), rl("cpu=1,memory=100Mi")};
  w.pod.metadata.generation = 2;
  w.pod.status.conditions = {{std::string(kube::kPodResizePending), "True", "Infeasible",
                              "Node didn't have enough capacity: cpu, requested: 1000, capacity: "
                              "800",
                              "", "", 2}};
  PodDecision same = w.decide_at(1);
  EXPECT_EQ(same.step, PodStep::Nothing);
  w.recs = {
      recommendation("app", "cpu=700m,memory=100Mi", "cpu=500m,memory=50Mi", "cpu=2,memory=1Gi")};
  PodDecision lower = w.decide_at(2);
  EXPECT_EQ(lower.step, PodStep::Resize);
  EXPECT_EQ(lower.reason, "recommendation dropped below the Infeasible resize");
}

TEST(ClassifyEviction, PdbAndGone) {
  EXPECT_EQ(classify_eviction(201), EvictionResult::Evicted);
  EXPECT_EQ(classify_eviction(200), EvictionResult::Evicted);
  EXPECT_EQ(classify_eviction(429), EvictionResult::Blocked);
  EXPECT_EQ(classify_eviction(404), EvictionResult::Gone);
  EXPECT_EQ(classify_eviction(500), EvictionResult::RetryLater);
  EXPECT_EQ(to_string(classify_eviction(0)), "RetryLater");
}

}  // namespace
}  // namespace tailor::actuator
