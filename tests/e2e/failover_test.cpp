// Leader failover: a second tailor-controller (same command line, same Lease) stands by; the
// leader is killed (SIGKILL: no goodbye, the Lease just expires); the standby takes the Lease
// within its duration, restores the models from the checkpoints the leader wrote, and acts —
// it resizes a pod in place with the recommendation it never computed itself (the node agents
// still stream usage to the dead leader's port, so the standby gets none).
#include <gtest/gtest.h>
#include <signal.h>

#include "tests/e2e/e2e_cluster.h"
#include "tests/e2e/restart_process.h"
#include "tests/e2e/workload_manifests.h"

namespace tailor::e2e {
namespace {

using std::chrono::seconds;

// LeaderElectionConfig's defaults: lease 15 s, retries every 2 s with jitter up to x2.2.
constexpr seconds kLeaseDuration{15};
constexpr seconds kTakeover = kLeaseDuration + seconds(5);

const std::string kManifests =
    deployment_manifest(
        {.name = "app", .containers = {{.requests = {{"cpu", "50m"}, {"memory", "32Mi"}}}}}) +
    "---\n" +
    policy_manifest({.name = "app",
                     .deployment = "app",
                     .min_replicas = 1,
                     .containers = {pinned({{"cpu", "100m"}, {"memory", "64Mi"}})}});

class ControllerFailover : public ::testing::Test {
 protected:
  void SetUp() override {
    E2eCluster& cluster = E2eCluster::get();
    leader_ = running_controller(cluster);
    // The leader, once killed, stays dead: the standby is what takes over.
    pause_controller_supervisor(cluster);
    supervisor_paused_ = true;
  }

  // Whatever happened, the environment gets back one controller as `tailor cluster up` ran it:
  // the leader is killed (if it still runs) and its resumed supervisor starts it again (same
  // command line, same usage port, DIR/controller.pid), leading, for the tests after this.
  void TearDown() override {
    if (!supervisor_paused_) return;  // SetUp failed before anything was touched
    restore_supervised_controller(E2eCluster::get(), leader_.pid, standby_);
  }

  ControllerProcess leader_;
  bool supervisor_paused_ = false;
  pid_t standby_ = 0;
};

TEST_F(ControllerFailover, StandbyTakesOverAndActs) {
  E2eCluster& cluster = E2eCluster::get();
  TestNamespace ns("e2e-failover");
  ASSERT_TRUE(ns.apply(kManifests));
  const std::vector<PodView> ready =
      wait_for_ready_pods(ns, "the app pod Ready", "app=app", 1, seconds(90));
  ASSERT_EQ(ready.size(), 1u);
  std::optional<PodView> pod = ready[0];
  const std::string uid = pod->uid;
  ASSERT_EQ(lease_holder(cluster), identity_of(leader_.pid));
  // The leader learns the container from its usage and checkpoints it (every minute).
  ASSERT_TRUE(
      wait_until("the leader's checkpoint of the container", seconds(100), [&](std::string& seen) {
        CommandResult r = ns.kubectl("get vscp app-app -o 'jsonpath={.status.totalSamplesCount}'");
        seen = r.out + r.err;
        return r.exit_code == 0 && std::atoll(r.out.c_str()) > 0;
      }));

  // The standby: the leader's command line with its own ports file (and ephemeral usage port).
  const auto standby_log = cluster.dir() / "controller-standby.log";
  const auto standby_ports = cluster.dir() / "controller-standby.ports";
  std::vector<std::string> argv = with_flag(leader_.argv, "--ports-file", standby_ports.string());
  argv = with_flag(argv, "--usage-bind-address", "127.0.0.1:0");
  standby_ = launch_detached(argv, standby_log, cluster.dir() / "controller-standby.pid");
  ASSERT_TRUE(wait_until("the standby up", seconds(30), [&](std::string& seen) {
    seen = log_since(standby_log, 0);
    return std::filesystem::exists(standby_ports);
  }));
  EXPECT_EQ(lease_holder(cluster), identity_of(leader_.pid)) << "the standby took the Lease early";

  ASSERT_TRUE(stop_process(leader_.pid, SIGKILL, seconds(10)));
  const auto killed = std::chrono::steady_clock::now();
  ASSERT_TRUE(wait_until("the standby holds the Lease", kTakeover, [&](std::string& seen) {
    seen = lease_holder(cluster);
    return seen == identity_of(standby_);
  })) << log_since(standby_log, 0);
  const auto takeover = std::chrono::steady_clock::now() - killed;
  std::cout << "[e2e] failover: standby leads "
            << std::chrono::duration_cast<std::chrono::milliseconds>(takeover).count()
            << " ms after the leader was killed" << std::endl;
  EXPECT_LE(takeover, kTakeover);

  // The new leader acts: the policy now allows updates, and the pod is resized in place to the
  // pinned recommendation from the restored model.
  CommandResult mode = ns.kubectl(
      R"(patch vsp app --type merge -p '{"spec":{"updatePolicy":{"mode":"InPlaceOrRecreate"}}}')");
  ASSERT_EQ(mode.exit_code, 0) << mode.err;
  const std::string name = pod->name;
  ASSERT_TRUE(wait_until("the pod resized in place by the new leader", seconds(60),
                         [&](std::string& seen) {
                           pod = ns.pod(name);
                           seen = pod ? pod->summary() : "the pod is gone";
                           const ContainerView* app = pod ? pod->container("app") : nullptr;
                           return app && milli_cpu(app->requests.at("cpu")) == 100 &&
                                  bytes(app->actual_requests.at("memory")) == 64 << 20;
                         }))
      << log_since(standby_log, 0);
  EXPECT_EQ(pod->container("app")->restart_count, 0);
  EXPECT_EQ(pod->uid, uid) << "recreated instead of resized";
  EXPECT_GE(restored_checkpoints(log_since(standby_log, 0)), 1) << log_since(standby_log, 0);
  bool requested = false;
  for (const EventView& e : ns.events()) requested |= e.reason == "ResizeRequested";
  EXPECT_TRUE(requested) << "no ResizeRequested event";
}

}  // namespace
}  // namespace tailor::e2e
