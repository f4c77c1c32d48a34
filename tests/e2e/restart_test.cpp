// tailor-controller restarted in the middle of a Deferred resize: the outcome timer keeps its
// original start (the recreation comes at start + deferredTimeout, not restart + timeout), and
// the new process recommends from the checkpoint its predecessor wrote on the way out.
#include <gtest/gtest.h>
#include <signal.h>

#include <boost/json.hpp>
#include <thread>

#include "kube/model/time.h"
#include "tests/e2e/e2e_cluster.h"
#include "tests/e2e/restart_process.h"
#include "tests/e2e/workload_manifests.h"

namespace tailor::e2e {
namespace {

using std::chrono::seconds;
using Clock = std::chrono::system_clock;

constexpr seconds kDeferredTimeout{45};
// Killed this far into the timer: a timer restarted by the new process would fire at
// start + kKillAfter + kDeferredTimeout at the earliest, well after the bound below.
constexpr seconds kKillAfter{20};
constexpr seconds kLate{12};  // pass interval, lease hand-over and informer sync after restart

const std::string kAvoid = "e2e.tailor.dev/avoid-e2e-restart";

// 700Mi + the pinned 384Mi > the small node's 1Gi (384Mi alone fits): Deferred there.
const std::string kManifests =
    pod_manifest(small_node_filler()) + "---\n" +
    deployment_manifest({.name = "app",
                         .node = "",
                         .avoid_label = kAvoid,
                         .containers = {{.requests = {{"cpu", "50m"}, {"memory", "64Mi"}}}}}) +
    "---\n" +
    policy_manifest({.name = "app",
                     .deployment = "app",
                     .mode = "InPlaceOrRecreate",
                     .min_replicas = 1,
                     .deferred_timeout = "45s",
                     .containers = {pinned({{"cpu", "50m"}, {"memory", "384Mi"}})}});

// When the controller first observed the pod's current resize outcome, from its state ConfigMap
// (the "since" of the pod's tracked resize), if that outcome is `status`.
std::optional<Clock::time_point> timer_start(const E2eCluster& cluster, const std::string& uid,
                                             const std::string& status, std::string& seen) {
  CommandResult r = cluster.kubectl(
      "get configmap tailor-controller-state -n kube-system -o 'jsonpath={.data.state}'");
  seen = r.out + r.err;
  if (r.exit_code != 0 || r.out.empty()) return std::nullopt;
  const boost::json::value state = boost::json::parse(r.out);
  const boost::json::value resizes = boost::json::parse(state.at("resizes").as_string());
  for (const boost::json::value& s : resizes.as_array()) {
    if (s.at("podUID").as_string() == uid && s.at("status").as_string() == status) {
      return Clock::time_point(std::chrono::duration_cast<Clock::duration>(
          kube::parse_rfc3339(s.at("since").as_string()).time_since_epoch()));
    }
  }
  return std::nullopt;
}

std::string rfc3339(Clock::time_point t) { return kube::format_rfc3339_micro(kube::TimePoint(t)); }

TEST(ControllerRestart, DeferredTimerAndRecommendationSurvive) {
  E2eCluster& cluster = E2eCluster::get();
  TestNamespace ns("e2e-restart");
  cluster.label_node(kBigNode, kAvoid, "true");
  ASSERT_TRUE(ns.apply(kManifests));
  const std::vector<PodView> ready =
      wait_for_ready_pods(ns, "the app pod Ready on the small node", "app=app", 1, seconds(90));
  cluster.label_node(kBigNode, kAvoid, std::nullopt);
  ASSERT_EQ(ready.size(), 1u);
  const PodView& pod = ready[0];
  ASSERT_EQ(pod.node, kSmallNode);
  const std::string uid = pod.uid;

  // Usage arrives, the pinned recommendation is published and the resize is Deferred.
  std::optional<Clock::time_point> since;
  ASSERT_TRUE(
      wait_until("the resize Deferred and its timer tracked", seconds(90), [&](std::string& seen) {
        since = timer_start(cluster, uid, "Deferred", seen);
        return since.has_value();
      }));
  std::optional<PolicyView> policy = ns.policy("app");
  ASSERT_TRUE(policy && policy->recommendation("app")) << (policy ? policy->summary() : "none");
  const Resources target = policy->recommendation("app")->target;

  // Restart, kKillAfter into the timer: SIGTERM (the controller writes its checkpoints and
  // releases the Lease on the way out); its supervisor starts the same command line again, on
  // the same usage port (fixed at cluster up) so that the node agents' streams reconnect.
  std::this_thread::sleep_until(*since + kKillAfter);
  const ControllerProcess old = running_controller(cluster);
  const auto log = cluster.dir() / "controller.log";
  const std::uintmax_t offset = log_size(log);
  ASSERT_TRUE(stop_process(old.pid, SIGTERM, seconds(20))) << "the controller did not exit";
  const ControllerProcess restarted = restarted_controller(cluster, old.pid, seconds(20));
  EXPECT_EQ(restarted.argv, old.argv) << "the supervisor changed the command line";
  const pid_t pid = restarted.pid;
  const CommandResult checkpoint =
      ns.kubectl("get vscp app-app -o 'jsonpath={.status.totalSamplesCount}'");
  EXPECT_EQ(checkpoint.exit_code, 0) << checkpoint.err;
  EXPECT_GT(std::atoll(checkpoint.out.c_str()), 0) << "no samples in the checkpoint";

  // The original timer decides: recreation at since + deferredTimeout.
  std::optional<Clock::time_point> evicted;
  const bool recreated = wait_until(
      "the Deferred pod evicted at its original deadline (" + rfc3339(*since + kDeferredTimeout) +
          ")",
      std::max(seconds(1), std::chrono::duration_cast<seconds>(*since + kDeferredTimeout + kLate +
                                                               seconds(20) - Clock::now())),
      [&](std::string& seen) {
        std::optional<PodView> first = ns.pod(pod.name);
        seen = first ? first->summary() : "the first pod is gone";
        if (first && first->uid == uid && !first->deleting) return false;
        evicted = Clock::now();
        return true;
      });
  ASSERT_TRUE(recreated) << cluster.controller_log_tail();
  EXPECT_GE(*evicted, *since + kDeferredTimeout) << "evicted at " << rfc3339(*evicted);
  EXPECT_LE(*evicted, *since + kDeferredTimeout + kLate)
      << "evicted at " << rfc3339(*evicted) << ": the timer restarted with the controller\n"
      << cluster.controller_log_tail();
  bool recreating = false;
  for (const EventView& e : ns.events())
    recreating |= e.reason == "Recreating" && e.object_uid == uid;
  EXPECT_TRUE(recreating) << "no Recreating event on the first pod";

  // The new process is the leader, restored the model and still publishes the recommendation.
  EXPECT_TRUE(
      wait_until("the restarted controller holds the Lease", seconds(20), [&](std::string& seen) {
        seen = lease_holder(cluster);
        return seen == identity_of(pid);
      }));
  const std::string after = log_since(log, offset);
  EXPECT_GE(restored_checkpoints(after), 1) << after;
  policy = ns.policy("app");
  ASSERT_TRUE(policy && policy->recommendation("app")) << (policy ? policy->summary() : "none");
  EXPECT_EQ(policy->recommendation("app")->target, target);
}

}  // namespace
}  // namespace tailor::e2e
