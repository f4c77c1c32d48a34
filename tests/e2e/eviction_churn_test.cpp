// Issue 15 point 2 on real containerd: a fresh 2-replica Deployment under steady load, its policy
// in Recreate mode, is evicted at most once per pod in its first 10 minutes. Its model is young,
// so the bounds a recreation is judged by are wide (VPA's confidence widening) and a change
// within them waits 12 h; an eviction, if any, comes with the webhook's right-sized replacement,
// which is not evicted again. (In place the strategy's rule moves at once: the Scenarios'
// InPlaceResizeConverges shows the same cluster resizing a burner in place, no restart.)
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <set>
#include <string>
#include <thread>

#include "tests/e2e/e2e_cluster.h"
#include "tests/e2e/workload_manifests.h"

namespace tailor::e2e {
namespace {

using std::chrono::seconds;

constexpr seconds kStart{120};           // both replicas scheduled and Ready
constexpr seconds kWatched{10 * 60};     // the first 10 minutes
constexpr const char* kApp = "app=app";  // the Deployment's pods

// Two burners capped at 100m by their limit, requesting a fifth of it: far above the request
// from the first window on. The policy controls requests only, so the limit, and with it the
// load, stays put (a burner's demand follows a limit scaled with its request: each replacement
// would then use more and be judged anew, the load would not be steady).
const WorkloadSpec kDeployment{.name = "app",
                               .replicas = 2,
                               .containers = {{.command = shell("while :; do :; done"),
                                               .requests = {{"cpu", "20m"}, {"memory", "32Mi"}},
                                               .limits = {{"cpu", "100m"}, {"memory", "64Mi"}}}}};

const std::string kPolicy =
    policy_manifest({.name = "app",
                     .deployment = "app",
                     .mode = "Recreate",
                     .min_replicas = 1,
                     .containers = {{.controlled_values = "RequestsOnly"}}});

TEST(EvictionChurn, AFreshRecreateDeploymentIsEvictedAtMostOncePerPod) {
  TestNamespace ns("e2e-churn");
  ASSERT_TRUE(ns.apply(deployment_manifest(kDeployment)));
  ASSERT_TRUE(ns.apply(kPolicy));
  ASSERT_EQ(wait_for_ready_pods(ns, "two Ready pods", kApp, 2, kStart).size(), 2u);
  // Every pod the Deployment ran, and how often Tailor evicted each (by the pod it names).
  std::set<std::string> uids;
  const auto until = std::chrono::steady_clock::now() + kWatched;
  while (std::chrono::steady_clock::now() < until) {
    for (const PodView& p : ns.pods(kApp)) uids.insert(p.uid);
    std::this_thread::sleep_for(seconds(5));
  }
  std::map<std::string, int> evictions;
  std::string told;
  for (const EventView& e : ns.events()) {
    if (e.reason != "Recreating") continue;
    evictions[e.object_uid] += e.count;
    told += "\n  " + e.object_name + ": " + e.message;
  }
  for (const auto& [uid, n] : evictions) EXPECT_LE(n, 1) << uid << told;
  // At most one replacement per original pod, none of them evicted again.
  EXPECT_LE(uids.size(), 4u) << told;
  EXPECT_LE(evictions.size(), 2u) << told;
  EXPECT_FALSE(ns.policy("app")->recommendations.empty()) << "no recommendation was published";
}

}  // namespace
}  // namespace tailor::e2e
