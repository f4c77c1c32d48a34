// Issue 15's OOM kill on real containerd: a Deployment whose only process outgrows its 64Mi
// memory limit is OOM-killed in its main process, so the container restarts in a new cgroup and
// the node agent's counter never sees the kill; only the pod status does (lastState.terminated
// reason OOMKilled). Tailor must raise the limit in place, not lower it, through a
// VerticalScalingPolicy and through a VPA object. The environment's controller runs the default
// strategy: its bump is max(+100Mi, x1.2) of the limit that was hit, 164Mi here (the vpa
// strategy's, VPA's own formula, is checked in tests/controller/integration/oom_cluster_test).
#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "kube/model/time.h"
#include "tests/e2e/e2e_cluster.h"
#include "tests/e2e/workload_manifests.h"

namespace tailor::e2e {
namespace {

using std::chrono::seconds;

constexpr seconds kStart{90};  // scheduled, image imported, first kill
// From the first kill to the raised limit: the node's status update, then at most two passes
// (2 s each), with room for a loaded machine.
constexpr seconds kRaise{30};
constexpr std::int64_t kMiB = 1 << 20;

// The shell itself (the container's main process) holds 80 MB read from /dev/zero, then execs
// sleep: above 64Mi it is the process the kernel kills; under the raised limit it holds the 80 MB
// and then idles. No CPU limit: the 80 MB arrive within a second, before any usage window could
// let Tailor raise the limit ahead of the kill (with a throttled CPU it does, and nothing dies).
const WorkloadSpec kDeployment{
    .name = "app",
    .containers = {{.command = shell("x=$(head -c 80000000 /dev/zero | tr '\\000' a)\n"
                                     "exec sleep 3600\n"),
                    .requests = {{"cpu", "50m"}, {"memory", "64Mi"}},
                    .limits = {{"memory", "64Mi"}}}}};

constexpr const char* kPolicy = R"(apiVersion: autoscaling.tailor.dev/v1alpha1
kind: VerticalScalingPolicy
metadata: {name: app}
spec:
  targetRef: {apiVersion: apps/v1, kind: Deployment, name: app}
  updatePolicy: {mode: InPlaceOrRecreate}
)";

constexpr const char* kVpa = R"(apiVersion: autoscaling.k8s.io/v1
kind: VerticalPodAutoscaler
metadata: {name: app}
spec:
  targetRef: {apiVersion: apps/v1, kind: Deployment, name: app}
  updatePolicy: {updateMode: InPlaceOrRecreate}
)";

// The Deployment's pod is OOM-killed, then runs on with a raised limit: the same pod (in place),
// within kRaise of the first kill, with the cgroup to match, and killed no more.
void oom_kill_raises_the_limit(const TestNamespace& ns) {
  ASSERT_TRUE(ns.apply(deployment_manifest(kDeployment)));
  const std::optional<OomKill> kill = wait_for_oom_kill(ns, "app=app", kStart);
  ASSERT_TRUE(kill);
  const std::string& uid = kill->pod_uid;
  const auto killed = kube::parse_rfc3339(kill->finished_at);
  std::optional<PodView> pod;
  ASSERT_TRUE(wait_until("the memory limit raised in place", kRaise, [&](std::string& seen) {
    const std::vector<PodView> pods = ns.pods("app=app");
    pod = pods.empty() ? std::nullopt : std::optional(pods[0]);
    seen = pod ? pod->summary() : "no pod";
    return pod && pod->uid == uid && bytes(pod->container("app")->limits.at("memory")) > 64 * kMiB;
  })) << E2eCluster::get().controller_log_tail();
  EXPECT_LE(std::chrono::system_clock::now() - killed, kRaise + seconds(5));
  // The default strategy's bump of the 64Mi limit: at least max(64Mi + 100Mi, 64Mi x 1.2).
  EXPECT_GE(bytes(pod->container("app")->limits.at("memory")), 164 * kMiB) << pod->summary();
  // Running at it: the node applied it, the cgroup says so, and the 80 MB now fit.
  ASSERT_TRUE(wait_until("running at the raised limit", kStart, [&](std::string& seen) {
    pod = ns.pod(pod->name);
    seen = pod ? pod->summary() : "no pod";
    if (!pod || pod->uid != uid || !pod->ready()) return false;
    const ContainerView& app = *pod->container("app");
    return app.running && app.actual_limits == app.limits &&
           read_container_cgroup(*pod, "app").memory_limit == bytes(app.limits.at("memory"));
  }));
  const int restarts = pod->container("app")->restart_count;
  std::this_thread::sleep_for(seconds(10));
  pod = ns.pod(pod->name);
  ASSERT_TRUE(pod);
  EXPECT_EQ(pod->container("app")->restart_count, restarts) << pod->summary();
  EXPECT_GE(bytes(pod->container("app")->limits.at("memory")), 164 * kMiB) << pod->summary();
}

TEST(OomKill, RaisesTheLimitThroughAVerticalScalingPolicy) {
  TestNamespace ns("e2e-oom-vsp");
  ASSERT_TRUE(ns.apply(kPolicy));
  oom_kill_raises_the_limit(ns);
}

TEST(OomKill, RaisesTheLimitThroughAVpaObject) {
  TestNamespace ns("e2e-oom-vpa");
  ASSERT_TRUE(install_vpa_crd(ns));
  ASSERT_TRUE(ns.apply(kVpa));
  // The controller lists VPA objects again within its informer's backoff (at most a minute after
  // the CRD appears); it has seen this one once it has written its status.
  ASSERT_TRUE(
      wait_until("the controller acting on the VPA object", seconds(90), [&](std::string& seen) {
        CommandResult r = ns.kubectl("get vpa app -o 'jsonpath={.status.conditions[*].type}'");
        seen = r.out + r.err;
        return r.exit_code == 0 && !r.out.empty();
      }));
  oom_kill_raises_the_limit(ns);
}

}  // namespace
}  // namespace tailor::e2e
