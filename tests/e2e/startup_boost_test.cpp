// Issue 18, point 2: the start-up CPU boost on `tailor cluster up` (real containerd). A pod
// under a VerticalScalingPolicy with startupBoost (factor 4, 10 s after Ready) starts with four
// times its CPU request and limit (the cgroup says so), burns CPU for its first seconds, becomes
// Ready, and is resized back in place: the same container (containerID), restartCount 0, the
// cgroup and kubectl showing the pre-boost values. Its windows under the boost were kept out of
// the model. The same on a VerticalPodAutoscaler object's Deployment. A boost no node can hold
// leaves the pod unboosted, with a StartupBoostSkipped event. The policy's mode is Off, so that
// nothing but the boost changes the pod (VPA's startupBoost applies whatever the mode).
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "kube/model/time.h"
#include "tests/e2e/e2e_cluster.h"
#include "tests/e2e/workload_manifests.h"

namespace tailor::e2e {
namespace {

using std::chrono::seconds;

constexpr seconds kStart{90};   // scheduled, image imported, started
constexpr seconds kRevert{40};  // 10 s after Ready, then a pass (2 s) and the node's resize

// CPU x4 at admission, for 10 s once Ready.
const CpuBoostSpec kBoost{.factor = 4, .duration_seconds = 10};

const std::string kPolicy =
    policy_manifest({.name = "boost", .selector = {{"app", "boost"}}, .startup_boost = kBoost});

// Burns a core for its first 5 s (a slow starter), then idles.
const WorkloadSpec kPodSpec{
    .name = "jvm",
    .labels = {{"app", "boost"}},
    .containers = {{.command = shell(R"(timeout 5 sh -c "while :; do :; done"; exec sleep 3600)"),
                    .requests = {{"cpu", "50m"}, {"memory", "32Mi"}},
                    .limits = {{"cpu", "100m"}, {"memory", "64Mi"}}}}};
const std::string kPod = pod_manifest(kPodSpec);

const Resources kBoostedRequests{{"cpu", "200m"}, {"memory", "32Mi"}};
const Resources kBoostedLimits{{"cpu", "400m"}, {"memory", "64Mi"}};
const Resources kRequests{{"cpu", "50m"}, {"memory", "32Mi"}};
const Resources kLimits{{"cpu", "100m"}, {"memory", "64Mi"}};

bool same(const Resources& a, const Resources& b) {
  if (a.size() != b.size()) return false;
  for (const auto& [name, q] : a) {
    auto it = b.find(name);
    if (it == b.end()) return false;
    if (name == "cpu" ? milli_cpu(q) != milli_cpu(it->second) : bytes(q) != bytes(it->second))
      return false;
  }
  return true;
}

std::string boost_annotation(const TestNamespace& ns, const std::string& pod) {
  return ns
      .kubectl("get pod " + pod +
               " -o 'jsonpath={.metadata.annotations.autoscaling\\.tailor\\.dev/startup-boost}'")
      .out;
}

bool has_event(const TestNamespace& ns, const std::string& reason, std::string& seen) {
  for (const EventView& e : ns.events()) {
    seen += e.reason + ": " + e.message + "; ";
    if (e.reason == reason && e.object_kind == "Pod") return true;
  }
  return false;
}

// Waits until a pass has written the policy's conditions: the controller's informer has it, so
// the webhook boosts the pods admitted from now on.
bool policy_seen_by_a_pass(const TestNamespace& ns, const std::string& name) {
  return wait_until("the policy seen by a pass", seconds(30), [&](std::string& seen) {
    std::optional<PolicyView> p = ns.policy(name);
    seen = p ? p->summary() : "no policy";
    return p && !p->conditions.empty();
  });
}

// The one pod `selector` finds.
std::optional<PodView> only_pod(const TestNamespace& ns, const std::string& selector) {
  std::vector<PodView> pods = ns.pods(selector);
  if (pods.size() != 1) return std::nullopt;
  return pods[0];
}

// The pod of `selector` (kPod's container, under a boost of factor 4 for 10 s after Ready) runs
// boosted, cgroup included, then is resized back in place: same container, no restart, the
// pre-boost values in its spec, status and cgroup, the revert's event and metrics.
void expect_boosted_then_taken_back(const TestNamespace& ns, const std::string& selector) {
  E2eCluster& cluster = E2eCluster::get();
  std::optional<PodView> pod;
  ASSERT_TRUE(wait_until("running boosted", kStart, [&](std::string& seen) {
    pod = only_pod(ns, selector);
    seen = pod ? pod->summary() : "not one pod";
    if (!pod || !pod->ready()) return false;
    const ContainerView& app = *pod->container("app");
    return app.running && same(app.actual_requests, kBoostedRequests) &&
           same(app.actual_limits, kBoostedLimits);
  })) << cluster.controller_log_tail();
  const std::string name = pod->name;
  const ContainerView boosted = *pod->container("app");
  EXPECT_TRUE(same(boosted.requests, kBoostedRequests)) << pod->summary();
  EXPECT_EQ(read_container_cgroup(*pod, "app"),
            expected_container_cgroup(kBoostedRequests, kBoostedLimits));
  EXPECT_NE(boost_annotation(ns, name).find(R"("requests":{"cpu":"50m"})"), std::string::npos);
  const auto boosted_seen = std::chrono::system_clock::now();
  // The controller counts it among the boosted pods within a pass or two (long before the
  // revert, 10 s after Ready).
  EXPECT_TRUE(
      wait_until("counted among the boosted pods", 3 * kPassInterval, [&](std::string& seen) {
        const auto n = cluster.controller_metric("tailor_controller_boosted_pods");
        seen = n ? std::to_string(*n) : "no series";
        return n >= 1;
      }));
  const double reverts_before =
      cluster
          .controller_metric("tailor_controller_startup_boost_reverts_total{result=\"reverted\"}")
          .value_or(0);

  ASSERT_TRUE(wait_until("resized back in place", kRevert, [&](std::string& seen) {
    pod = only_pod(ns, selector);
    seen = pod ? pod->summary() : "not one pod";
    if (!pod) return false;
    const ContainerView& app = *pod->container("app");
    return same(app.requests, kRequests) && same(app.limits, kLimits) &&
           same(app.actual_requests, kRequests) && same(app.actual_limits, kLimits);
  })) << cluster.controller_log_tail();
  // Not before Ready + 10 s: at least 10 s after it was first seen Ready and boosted, less a
  // pass of slack for when Ready was seen.
  EXPECT_GE(std::chrono::system_clock::now() - boosted_seen, seconds(10) - kPassInterval);
  EXPECT_EQ(pod->name, name);
  const ContainerView& app = *pod->container("app");
  EXPECT_EQ(app.restart_count, 0) << pod->summary();
  EXPECT_EQ(app.container_id, boosted.container_id) << pod->summary();
  EXPECT_EQ(pod->qos_class, "Burstable");
  EXPECT_EQ(read_container_cgroup(*pod, "app"), expected_container_cgroup(kRequests, kLimits));
  // kubectl shows it, and the pod remembers the revert.
  CommandResult k = ns.kubectl(
      "get pod " + name +
      " -o 'jsonpath={.spec.containers[0].resources.requests.cpu} "
      "{.spec.containers[0].resources.limits.cpu} {.status.containerStatuses[0].restartCount}'");
  EXPECT_EQ(k.out, "50m 100m 0") << k.err;
  EXPECT_NE(boost_annotation(ns, name).find("revertedAt"), std::string::npos);
  ASSERT_TRUE(wait_until("the StartupBoostReverted event", seconds(10),
                         [&](std::string& s) { return has_event(ns, "StartupBoostReverted", s); }));
  EXPECT_GT(
      cluster
          .controller_metric("tailor_controller_startup_boost_reverts_total{result=\"reverted\"}")
          .value_or(0),
      reverts_before);
  // ... and no more among the boosted pods (none other is boosted in the environment).
  EXPECT_TRUE(wait_until("no boosted pods", 3 * kPassInterval, [&](std::string& seen) {
    const auto n = cluster.controller_metric("tailor_controller_boosted_pods");
    seen = n ? std::to_string(*n) : "no series";
    return n == 0;
  }));
}

TEST(StartupBoost, BoostedAtStartThenResizedBackInPlace) {
  TestNamespace ns("e2e-startup-boost");
  E2eCluster& cluster = E2eCluster::get();
  const double windows_before =
      cluster.controller_metric("tailor_controller_usage_windows_boosted_total").value_or(0);
  ASSERT_TRUE(ns.apply(kPolicy));
  // The policy reaches the controller's informer before the pod is admitted.
  ASSERT_TRUE(policy_seen_by_a_pass(ns, "boost"));
  ASSERT_TRUE(ns.apply(kPod));
  expect_boosted_then_taken_back(ns, "app=boost");
  // Its windows during the boost (reported every 2 s, about 15 s of them) never reached a model.
  EXPECT_GT(cluster.controller_metric("tailor_controller_usage_windows_boosted_total").value_or(0),
            windows_before);
}

// VPA's startupBoost (1.7, alpha: spec.startupBoost, the same shape) on a VerticalPodAutoscaler
// object, which the controller watches (--watch-vpa): a Deployment's pod, found through its
// ReplicaSet, boosted at admission and taken back in place.
const std::string kVpa =
    vpa_manifest({.name = "boost-vpa", .deployment = "jvm", .startup_boost = kBoost});

TEST(StartupBoost, OnAVerticalPodAutoscalerObjectToo) {
  TestNamespace ns("e2e-startup-boost-vpa");
  ASSERT_TRUE(install_vpa_crd(ns));
  ASSERT_TRUE(ns.apply(kVpa));
  ASSERT_TRUE(wait_until("the VPA object seen by a pass", seconds(30), [&](std::string& seen) {
    seen = ns.kubectl("get vpa boost-vpa -o 'jsonpath={.status.conditions[*].type}'").out;
    return !seen.empty();
  })) << E2eCluster::get().controller_log_tail();
  ASSERT_TRUE(ns.apply(deployment_manifest({.name = "jvm", .containers = kPodSpec.containers})));
  expect_boosted_then_taken_back(ns, "app=jvm");
}

const std::string kTooBigPolicy =
    policy_manifest({.name = "huge",
                     .selector = {{"app", "huge"}},
                     .startup_boost = CpuBoostSpec{.quantity = "64"}});

const std::string kTooBigPod =
    pod_manifest({.name = "huge",
                  .labels = {{"app", "huge"}},
                  .containers = {{.requests = {{"cpu", "50m"}, {"memory", "32Mi"}}}}});

TEST(StartupBoost, NoNodeCanHoldItSoThePodStartsUnboostedAndSaysSo) {
  TestNamespace ns("e2e-startup-boost-skipped");
  ASSERT_TRUE(ns.apply(kTooBigPolicy));
  ASSERT_TRUE(policy_seen_by_a_pass(ns, "huge"));
  ASSERT_TRUE(ns.apply(kTooBigPod));
  ASSERT_TRUE(wait_until("the StartupBoostSkipped event", kStart, [&](std::string& seen) {
    return has_event(ns, "StartupBoostSkipped", seen);
  })) << E2eCluster::get().controller_log_tail();
  std::optional<PodView> pod = ns.pod("huge");
  ASSERT_TRUE(pod);
  EXPECT_TRUE(same(pod->container("app")->requests, {{"cpu", "50m"}, {"memory", "32Mi"}}))
      << pod->summary();
  EXPECT_NE(boost_annotation(ns, "huge").find("Node didn't have enough capacity: cpu"),
            std::string::npos);
}

}  // namespace
}  // namespace tailor::e2e
