// The shared environment itself: both nodes Ready with the sizes the scenarios rely on, and a pod
// run by a node agent on real containerd with the cgroup files its resources call for.
#include <gtest/gtest.h>

#include "tests/e2e/e2e_cluster.h"

namespace tailor::e2e {
namespace {

TEST(Environment, NodesAreReadyWithTheirSizes) {
  E2eCluster& cluster = E2eCluster::get();
  CommandResult nodes = cluster.kubectl(
      "get nodes -o "
      "'jsonpath={range .items[*]}{.metadata.name}={.status.allocatable.cpu},"
      "{.status.allocatable.memory},{.status.conditions[?(@.type==\"Ready\")].status};{end}'");
  ASSERT_EQ(nodes.exit_code, 0) << nodes.err;
  EXPECT_NE(nodes.out.find(std::string(kSmallNode) + "=1,1Gi,True;"), std::string::npos)
      << nodes.out;
  EXPECT_NE(nodes.out.find(std::string(kBigNode) + "=2,6Gi,True;"), std::string::npos) << nodes.out;
}

// `tailor cluster up` installs the chart's CRDs before the controller starts, so policies and
// checkpoints can be written right away.
TEST(Environment, ChartCrdsAreEstablished) {
  E2eCluster& cluster = E2eCluster::get();
  CommandResult crds = cluster.kubectl(
      "get crd verticalscalingpolicies.autoscaling.tailor.dev "
      "verticalscalingcheckpoints.autoscaling.tailor.dev -o "
      "'jsonpath={range .items[*]}{.metadata.name}={.status.conditions[?(@.type==\"Established\")]"
      ".status};{end}'");
  ASSERT_EQ(crds.exit_code, 0) << crds.err;
  EXPECT_EQ(crds.out,
            "verticalscalingpolicies.autoscaling.tailor.dev=True;"
            "verticalscalingcheckpoints.autoscaling.tailor.dev=True;");
}

TEST(Environment, PodRunsWithItsCgroups) {
  TestNamespace ns("e2e-environment");
  ASSERT_TRUE(ns.apply(R"(apiVersion: v1
kind: Pod
metadata: {name: sleeper}
spec:
  terminationGracePeriodSeconds: 0
  containers:
  - name: app
    image: busybox
    command: [sleep, "3600"]
    resources:
      requests: {cpu: 100m, memory: 32Mi}
      limits: {cpu: 200m, memory: 64Mi}
)"));
  const std::optional<PodView> pod =
      wait_for_ready_pod(ns, "pod sleeper Ready", "sleeper", std::chrono::seconds(60));
  ASSERT_TRUE(pod);
  EXPECT_EQ(pod->qos_class, "Burstable");
  const ContainerView& app = *pod->container("app");
  EXPECT_EQ(read_container_cgroup(*pod, "app"), expected_container_cgroup(app.requests, app.limits))
      << pod->summary();
  EXPECT_EQ(
      expected_container_cgroup(app.requests, app.limits),
      (CgroupFiles{
          .cpu_shares = 102, .cpu_quota = 20000, .cpu_period = 100000, .memory_limit = 64 << 20}));
}

}  // namespace
}  // namespace tailor::e2e
