// Issue 15's OOM kill on real containerd: a Deployment whose only process outgrows its 64Mi
// memory limit is OOM-killed in its main process, so the container restarts in a new cgroup and
// the node agent's counter never sees the kill; only the pod status does (lastState.terminated
// reason OOMKilled). Tailor must raise the limit in place, not lower it, through a
// VerticalScalingPolicy under the environment's default strategy (its bump: max(+100Mi, x1.2) of
// the limit that was hit, 164Mi here, at least), and through a VPA object under --strategy=vpa,
// the parity option a VPA user switches to, whose bump must be exactly VPA's formula
// (tests/support/vpa_oom_target.h, as tests/controller/integration/oom_cluster_test checks it
// in-process).
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <iostream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "tests/e2e/e2e_cluster.h"
#include "tests/e2e/restart_process.h"
#include "tests/e2e/workload_manifests.h"
#include "tests/support/vpa_oom_target.h"

namespace tailor::e2e {
namespace {

using std::chrono::seconds;

constexpr seconds kStart{90};  // scheduled, image imported, first kill
// How many controller passes may complete after the test sees the kill in the pod status while
// the limit is still the old one (see oom_kill_raises_the_limit for why 2). Passes are counted
// (tailor_controller_pass_duration_seconds_count on the controller's /metrics), not seconds.
constexpr double kPassesToRaise = 2;
constexpr std::int64_t kMiB = 1 << 20;

// The shell itself (the container's main process) reads `allocated` bytes from /dev/zero into a
// variable, then execs sleep; for a moment it holds them twice (the command substitution's text
// and the variable's copy), so above half its `limit` it is the process the kernel kills, and
// under a limit above twice them it holds them and then idles. No CPU limit: the bytes arrive
// within a second, before any usage window could let Tailor raise the limit ahead of the kill
// (with a throttled CPU it does, and nothing dies). `before` runs first.
WorkloadSpec outgrowing(const std::string& limit, const std::string& allocated,
                        const std::string& before = "") {
  return {.name = "app",
          .containers = {{.command = shell(before + "x=$(head -c " + allocated +
                                           " /dev/zero | tr '\\000' a)\nexec sleep 3600\n"),
                          .requests = {{"cpu", "50m"}, {"memory", limit}},
                          .limits = {{"memory", limit}}}}};
}
// The default strategy raises a limit that usage nears, so under load the shell's reading, which
// grows its memory over a second or more, was raised ahead of its kill (4 runs in 7 at load 7-18:
// no kill at all). Here the main process (busybox awk, exec'd) asks for 80 MB in one sprintf and
// fills it within milliseconds, ~100 MB at its peak: killed at 64Mi before any usage window can
// show it, and held, idle, under the raised limit (164Mi at least).
const WorkloadSpec kDeployment = {
    .name = "app",
    .containers = {{.command = shell("exec awk 'BEGIN { s = sprintf(\"%80000000s\", \"\"); "
                                     "system(\"exec sleep 3600\") }'\n"),
                    .requests = {{"cpu", "50m"}, {"memory", "64Mi"}},
                    .limits = {{"memory", "64Mi"}}}}};
// For the vpa strategy, 256Mi: VPA's 250Mi pod minimum floors every bound, so a container below
// it is raised to it before any kill (its request under the lower bound), and a bump that ends
// below it shows only the floor; from 256Mi the bump (356Mi) and its target (~420Mi) are the
// formula's own. 170 MB (340 MB at once) is killed at 256Mi and fits under the target. The shell
// first idles 15 s: VPA's model, as VPA's own, discards a kill from before its first memory sample
// (RecordOOM's "too old"), so the container's usage is reported before it is killed (samples each
// second, reports every 2 s: the margin is for a loaded CI machine).
const WorkloadSpec kVpaStrategyDeployment = outgrowing("256Mi", "170000000", "sleep 15\n");

const PolicySpec kPolicy{.name = "app", .deployment = "app", .mode = "InPlaceOrRecreate"};

// The Deployment's pod is OOM-killed, then runs on with a raised limit: the same pod (in place),
// within two controller passes of the first pass that could see the kill, with the cgroup to
// match, and killed no more. `raised` is the pod at its raised limit. The controller is whichever
// serves the environment's metrics port (ControllerWithFlag's runs on the same ports).
void oom_kill_raises_the_limit(const TestNamespace& ns, const WorkloadSpec& deployment,
                               std::optional<PodView>& raised) {
  const E2eCluster& cluster = E2eCluster::get();
  const std::int64_t limit = bytes(deployment.containers[0].limits.at("memory"));
  ASSERT_TRUE(ns.apply(deployment_manifest(deployment)));
  const std::optional<OomKill> kill = wait_for_oom_kill(ns, "app=app", kStart);
  ASSERT_TRUE(kill);
  const std::string& uid = kill->pod_uid;
  // The bound, in passes. `at_kill` is read after the test has read the kill from the API. A pass
  // runs on a snapshot of the controller's watch cache taken when it starts, feeds the status's
  // kills to the model before it decides (Controller::act), issues its resizes, and only then
  // counts itself. Pass at_kill+1 may have started before the kill reached the cache; pass
  // at_kill+2 starts after at_kill+1 has completed, i.e. after this read, when the kill was in the
  // API (the watch delivers it on loopback long before the next 2 s pass). So the first pass that
  // could see the kill, F, is at most at_kill+2, and "raised within two passes" (F or F+1 writes
  // the raise) means: by the time pass at_kill+3 has completed, the raise is in the API. Each probe
  // below reads the counter BEFORE it reads the pod: a probe that still sees the old limit after
  // `before` passes had completed shows passes at_kill+1 .. `before` all completed without the
  // raise, so `before` must stay at most at_kill+2 (kPassesToRaise). The bound can only be loose
  // (F may be earlier than at_kill+2), never fail a controller that raises in time.
  const double at_kill = cluster.controller_passes();
  double unraised_at = at_kill;  // the last counter read before a probe that saw the old limit
  std::optional<PodView> pod;
  ASSERT_TRUE(wait_until("the memory limit raised in place", kStart, [&](std::string& seen) {
    const double before = cluster.controller_passes();
    const std::vector<PodView> pods = ns.pods("app=app");
    pod = pods.empty() ? std::nullopt : std::optional(pods[0]);
    seen = pod ? pod->summary() : "no pod";
    seen += " passes since the kill=" + std::to_string(before - at_kill);
    const bool done =
        pod && pod->uid == uid && bytes(pod->container("app")->limits.at("memory")) > limit;
    if (!done) unraised_at = before;
    // Past the bound: stop, and fail below, rather than wait for a raise that comes too late.
    return done || unraised_at - at_kill > kPassesToRaise;
  })) << cluster.controller_log_tail();
  std::cout << "[e2e] OOM kill seen after pass " << at_kill << "; passes completed since with the "
            << "old limit still in the API: " << unraised_at - at_kill << std::endl;
  EXPECT_LE(unraised_at - at_kill, kPassesToRaise)
      << "passes completed after the kill was visible, limit still "
      << deployment.containers[0].limits.at("memory") << "\n"
      << cluster.controller_log_tail();
  ASSERT_TRUE(pod && pod->uid == uid && bytes(pod->container("app")->limits.at("memory")) > limit)
      << (pod ? pod->summary() : "no pod");
  const std::string raised_limit = pod->container("app")->limits.at("memory");
  // Running at it: the node applied it, the cgroup says so (in whole pages: the kernel rounds
  // memory.limit_in_bytes down, and VPA's target is not page-aligned), and the bytes now fit.
  const std::int64_t page = sysconf(_SC_PAGESIZE);
  ASSERT_TRUE(wait_until("running at the raised limit", kStart, [&](std::string& seen) {
    pod = ns.pod(pod->name);
    seen = pod ? pod->summary() : "no pod";
    if (!pod || pod->uid != uid || !pod->ready()) return false;
    const ContainerView& app = *pod->container("app");
    const std::int64_t cgroup = read_container_cgroup(*pod, "app").memory_limit;
    seen += " cgroup memory=" + std::to_string(cgroup);
    return app.running && app.actual_limits == app.limits &&
           cgroup == bytes(app.limits.at("memory")) / page * page;
  }));
  const int restarts = pod->container("app")->restart_count;
  std::this_thread::sleep_for(seconds(10));
  pod = ns.pod(pod->name);
  ASSERT_TRUE(pod);
  EXPECT_EQ(pod->container("app")->restart_count, restarts) << pod->summary();
  // Not lowered after the raise.
  EXPECT_GE(bytes(pod->container("app")->limits.at("memory")), bytes(raised_limit))
      << pod->summary();
  raised = pod;
}

TEST(OomKill, RaisesTheLimitThroughAVerticalScalingPolicy) {
  TestNamespace ns("e2e-oom-vsp");
  ASSERT_TRUE(ns.apply(policy_manifest(kPolicy)));
  std::optional<PodView> pod;
  ASSERT_NO_FATAL_FAILURE(oom_kill_raises_the_limit(ns, kDeployment, pod));
  // The default strategy's bump of the 64Mi limit: at least max(64Mi + 100Mi, 64Mi x 1.2).
  EXPECT_GE(bytes(pod->container("app")->limits.at("memory")), 164 * kMiB) << pod->summary();
}

// A VPA user's switch: the VPA object as written for VPA, the controller run with
// --strategy=vpa (for this test only; the environment's controller comes back after it).
TEST(OomKill, RaisesTheLimitThroughAVpaObjectByVpasFormulaUnderTheVpaStrategy) {
  TestNamespace ns("e2e-oom-vpa");
  // Before the controller starts, so that it lists VPA objects at once.
  ASSERT_TRUE(install_vpa_crd(ns));
  ControllerWithFlag vpa_strategy(E2eCluster::get(), "strategy", "vpa");
  ASSERT_TRUE(ns.apply(vpa_manifest(kPolicy)));
  // It has seen the VPA object once it has written its status.
  ASSERT_TRUE(wait_until("the controller acting on the VPA object", seconds(30),
                         [&](std::string& seen) {
                           CommandResult r =
                               ns.kubectl("get vpa app -o 'jsonpath={.status.conditions[*].type}'");
                           seen = r.out + r.err;
                           return r.exit_code == 0 && !r.out.empty();
                         }))
      << read_text(vpa_strategy.log());
  std::optional<PodView> pod;
  ASSERT_NO_FATAL_FAILURE(oom_kill_raises_the_limit(ns, kVpaStrategyDeployment, pod));
  // VPA's bump of the 256Mi request, through its estimator: the published target, and the
  // pod's request and limit (request = limit, so VPA's limit proportion keeps them equal).
  const std::int64_t want =
      bytes(controller::testing::vpa_oom_target(static_cast<double>(256 * kMiB)).to_string());
  const CommandResult target = ns.kubectl(
      "get vpa app -o "
      "'jsonpath={.status.recommendation.containerRecommendations[0].target.memory}'");
  EXPECT_EQ(bytes(target.out), want) << target.out << target.err;
  EXPECT_EQ(bytes(pod->container("app")->requests.at("memory")), want) << pod->summary();
  EXPECT_EQ(bytes(pod->container("app")->limits.at("memory")), want) << pod->summary();
}

}  // namespace
}  // namespace tailor::e2e
