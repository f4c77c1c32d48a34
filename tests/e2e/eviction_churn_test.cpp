// Issue 15 point 2 on real containerd: fresh 2-replica Deployments under steady load, watched
// side by side (one namespace each) for their first 10 minutes:
//  - Recreate, RequestsOnly (VerticalScalingPolicy), a burner held at its limit;
//  - Recreate, the default RequestsAndLimits (limits scaled with the requests);
//  - a VerticalPodAutoscaler in updateMode Auto (RequestsAndLimits, VPA's default);
// are each evicted at most once per pod. Their models are young, so the bounds a recreation is
// judged by are wide (VPA's confidence widening) and a change within them waits 12 h; an
// eviction, if any, comes with the webhook's right-sized replacement, which is not evicted again.
//  - InPlaceOrRecreate (unpinned): the strategy's rule moves at once, in place: the same pods
//    throughout, no restart, the requests moved into the recommendation's bounds, and few
//    resizes once there.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "tests/e2e/e2e_cluster.h"
#include "tests/e2e/workload_manifests.h"

namespace tailor::e2e {
namespace {

using std::chrono::seconds;

constexpr seconds kStart{120};           // both replicas scheduled and Ready
constexpr seconds kWatched{10 * 60};     // the first 10 minutes
constexpr const char* kApp = "app=app";  // every arm's Deployment is "app"

// Once its requests are within the recommendation's bounds, a pod resized in place is resized at
// most this many times more in the 10 minutes. Its first resize raised CPU (20m under a ~35m
// load), and the strategy's rule lowers no CPU for 30 minutes after a raise and no memory for a
// day (recommender/cpu_rule.h, tailored_strategy.h); memory rises only with a higher peak (a
// steady shell's stays under the 250Mi floor). So what is left are CPU raises, each of at least
// 15 % (the rule's band; a burst's raise is 1.3 x 1.2), from at least the lower bound to at most
// the upper one: the default strategy's bounds span less than 1.15^3 (seen: [26m, 35m],
// [29m, 39m]), hence at most 2 under bounds that hold still; one more for the bounds' own drift
// while the young histogram's first windows fill (the two spans seen lie ~10 % apart), which may
// let a last raise in (seen 0, 1 and 2 per pod in four runs). The issue saw 3 a minute.
constexpr int kResizesAfterSettling = 3;

// Requests a fifth of the 100m limit and 32Mi, below the strategy's 250Mi floor: far from the
// recommendation from the first window on, so every arm has a change to make.
ContainerSpec app_container(std::vector<std::string> command) {
  return {.command = std::move(command),
          .requests = {{"cpu", "20m"}, {"memory", "32Mi"}},
          .limits = {{"cpu", "100m"}, {"memory", "64Mi"}}};
}

// A burner, capped at 100m by its limit: its demand follows the limit, so it is steady only
// while the limit stays (RequestsOnly).
const ContainerSpec kBurner = app_container(shell("while :; do :; done"));
// Steady load whatever the limit: 2000 iterations of the shell (about 7 ms of CPU) every 200 ms,
// about 35m, under the 100m limit (a limit scaled with the request neither raises nor caps it).
const ContainerSpec kSteady = app_container(
    shell("while :; do i=0; while [ $i -lt 2000 ]; do i=$((i+1)); done; sleep 0.2; done"));

WorkloadSpec deployment_of(const ContainerSpec& container) {
  return {.name = "app", .replicas = 2, .containers = {container}};
}

enum class Kind { Policy, Vpa };

struct Arm {
  std::string ns;  // the namespace, which also names the arm in messages
  Kind kind;
  WorkloadSpec deployment;
  PolicySpec policy;
  bool in_place = false;
};

const std::vector<std::string> kResources = {"cpu", "memory"};

std::string manifest(const Arm& arm) {
  return arm.kind == Kind::Vpa ? vpa_manifest(arm.policy) : policy_manifest(arm.policy);
}

std::optional<PolicyView> policy_of(const TestNamespace& ns, const Arm& arm) {
  return arm.kind == Kind::Vpa ? ns.vpa("app") : ns.policy("app");
}

// The events of Tailor's actions on pods, by the reasons the policy's API uses (policy/signals.h).
std::string eviction_reason(const Arm& arm) {
  return arm.kind == Kind::Vpa ? "EvictedByVPA" : "Recreating";
}
std::string resize_reason(const Arm& arm) {
  return arm.kind == Kind::Vpa ? "InPlaceResizedByVPA" : "ResizeRequested";
}

// A cpu quantity in milli-CPU, a memory quantity in bytes.
std::int64_t quantity(const std::string& resource, const std::string& q) {
  return resource == "cpu" ? milli_cpu(q) : bytes(q);
}

// Per pod uid, how many events of `reason` name it; `told` collects their messages.
std::map<std::string, int> count_events(const TestNamespace& ns, const std::string& reason,
                                        std::string& told) {
  std::map<std::string, int> out;
  for (const EventView& e : ns.events()) {
    if (e.reason != reason) continue;
    out[e.object_uid] += e.count;
    told += "\n  " + e.object_name + " " + e.reason + ": " + e.message;
  }
  return out;
}

int total(const std::map<std::string, int>& counts) {
  int n = 0;
  for (const auto& [uid, c] : counts) n += c;
  return n;
}

// Whether the pod's request of `resource` is within the recommendation's [lowerBound,
// upperBound], both capped at the container's limit (a request cannot pass it: RequestsOnly
// leaves the limit, so a request under bounds above its limit settles at the limit, 230be47);
// `why` says what was compared.
bool within_bounds(const PodView& pod, const PolicyView& policy, const std::string& resource,
                   std::string& why) {
  const ContainerView* c = pod.container("app");
  const ContainerRecommendationView* r = policy.recommendation("app");
  if (!c || !r || !c->requests.count(resource) || !r->lower_bound.count(resource) ||
      !r->upper_bound.count(resource)) {
    why = pod.summary() + " / " + policy.summary();
    return false;
  }
  std::int64_t lower = quantity(resource, r->lower_bound.at(resource));
  std::int64_t upper = quantity(resource, r->upper_bound.at(resource));
  if (c->limits.count(resource)) {
    const std::int64_t limit = quantity(resource, c->limits.at(resource));
    lower = std::min(lower, limit);
    upper = std::min(upper, limit);
  }
  const std::int64_t request = quantity(resource, c->requests.at(resource));
  why = pod.name + " " + resource + " request " + c->requests.at(resource) + " in [" +
        r->lower_bound.at(resource) + ", " + r->upper_bound.at(resource) + "] (limit " +
        (c->limits.count(resource) ? c->limits.at(resource) : "none") + ")";
  return lower <= request && request <= upper;
}

bool all_within_bounds(const std::vector<PodView>& pods, const PolicyView& policy,
                       const std::vector<std::string>& resources, std::string& why) {
  why.clear();
  bool all = true;
  for (const PodView& p : pods) {
    for (const std::string& resource : resources) {
      std::string one;
      all = within_bounds(p, policy, resource, one) && all;
      why += "\n    " + one;
    }
  }
  return all;
}

bool same_quantities(const Resources& a, const Resources& b) {
  const auto number = [](const Resources& r, const std::string& resource) -> std::int64_t {
    if (!r.count(resource)) return -1;
    return quantity(resource, r.at(resource));
  };
  return number(a, "cpu") == number(b, "cpu") && number(a, "memory") == number(b, "memory");
}

// What the watch saw of one arm.
struct Watched {
  std::set<std::string> uids;  // every pod the Deployment ran
  std::set<std::string> first_uids;
  // In place: the resize events per pod when its requests were first all within the bounds.
  std::optional<std::map<std::string, int>> resizes_when_settled;
  seconds settled_after{0};  // since the watch began
  std::string last_seen;
};

void observe(const TestNamespace& ns, const Arm& arm, seconds since_start, Watched& w) {
  const std::vector<PodView> pods = ns.pods(kApp);
  for (const PodView& p : pods) w.uids.insert(p.uid);
  if (!arm.in_place || w.resizes_when_settled) return;
  const std::optional<PolicyView> policy = policy_of(ns, arm);
  if (!policy || pods.size() != 2) return;
  // Settled: both pods' resizes done (the actual requests are the desired ones) and within bounds.
  for (const PodView& p : pods) {
    const ContainerView* c = p.container("app");
    if (!c || !same_quantities(c->actual_requests, c->requests)) return;
  }
  if (!all_within_bounds(pods, *policy, kResources, w.last_seen)) return;
  std::string told;
  w.resizes_when_settled = count_events(ns, resize_reason(arm), told);
  w.settled_after = since_start;
}

TEST(EvictionChurn, AFreshRecreateDeploymentIsEvictedAtMostOncePerPod) {
  const std::vector<Arm> arms = {
      {.ns = "e2e-churn",
       .kind = Kind::Policy,
       .deployment = deployment_of(kBurner),
       .policy = {.name = "app",
                  .deployment = "app",
                  .mode = "Recreate",
                  .min_replicas = 1,
                  .containers = {{.controlled_values = "RequestsOnly"}}}},
      {.ns = "e2e-churn-limits",
       .kind = Kind::Policy,
       .deployment = deployment_of(kSteady),
       .policy = {.name = "app", .deployment = "app", .mode = "Recreate", .min_replicas = 1}},
      {.ns = "e2e-churn-vpa",
       .kind = Kind::Vpa,
       .deployment = deployment_of(kSteady),
       .policy = {.name = "app", .deployment = "app", .mode = "Auto"}},
      {.ns = "e2e-churn-in-place",
       .kind = Kind::Policy,
       .deployment = deployment_of(kSteady),
       .policy = {.name = "app", .deployment = "app", .mode = "InPlaceOrRecreate"},
       .in_place = true},
  };
  std::vector<std::unique_ptr<TestNamespace>> namespaces;
  for (const Arm& arm : arms) namespaces.push_back(std::make_unique<TestNamespace>(arm.ns));
  ASSERT_TRUE(install_vpa_crd(*namespaces.front()));
  for (std::size_t i = 0; i < arms.size(); ++i) {
    ASSERT_TRUE(namespaces[i]->apply(deployment_manifest(arms[i].deployment)));
    ASSERT_TRUE(namespaces[i]->apply(manifest(arms[i])));
  }
  std::vector<Watched> watched(arms.size());
  for (std::size_t i = 0; i < arms.size(); ++i) {
    const std::vector<PodView> pods =
        wait_for_ready_pods(*namespaces[i], arms[i].ns + ": two Ready pods", kApp, 2, kStart);
    ASSERT_EQ(pods.size(), 2u);
    for (const PodView& p : pods) watched[i].first_uids.insert(p.uid);
    watched[i].uids = watched[i].first_uids;
  }
  const auto start = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() < start + kWatched) {
    const auto since =
        std::chrono::duration_cast<seconds>(std::chrono::steady_clock::now() - start);
    for (std::size_t i = 0; i < arms.size(); ++i) {
      observe(*namespaces[i], arms[i], since, watched[i]);
    }
    std::this_thread::sleep_for(seconds(5));
  }

  for (std::size_t i = 0; i < arms.size(); ++i) {
    SCOPED_TRACE(arms[i].ns);
    const Arm& arm = arms[i];
    const TestNamespace& ns = *namespaces[i];
    const Watched& w = watched[i];
    std::string told;
    const std::map<std::string, int> evictions = count_events(ns, eviction_reason(arm), told);
    const std::map<std::string, int> resizes = count_events(ns, resize_reason(arm), told);
    const std::vector<PodView> pods = ns.pods(kApp);
    std::string seen;
    for (const PodView& p : pods) seen += "\n    " + p.summary();
    const std::optional<PolicyView> policy = policy_of(ns, arm);
    ASSERT_TRUE(policy) << "no policy object";
    ASSERT_FALSE(policy->recommendations.empty()) << "no recommendation was published";
    // The counts of each run, for bench/RESULTS.md and the issue.
    std::cout << "[churn] " << arm.ns << ": pods " << w.uids.size() << ", evictions "
              << total(evictions) << " (on " << evictions.size() << " pods), resizes "
              << total(resizes) << " (on " << resizes.size() << " pods)";
    if (w.resizes_when_settled) {
      std::cout << ", settled after " << w.settled_after.count() << " s, resizes after that";
      for (const auto& [uid, n] : resizes) {
        const auto before = w.resizes_when_settled->find(uid);
        std::cout << " " << n - (before == w.resizes_when_settled->end() ? 0 : before->second);
      }
    }
    std::cout << std::endl;

    // Every pod settled on the recommendation: whatever had to move did (the eviction that was
    // due happened, the webhook sized the replacement; or the resize in place).
    ASSERT_EQ(pods.size(), 2u) << seen;
    std::string why;
    EXPECT_TRUE(all_within_bounds(pods, *policy, kResources, why)) << why;

    if (!arm.in_place) {
      for (const auto& [uid, n] : evictions) EXPECT_LE(n, 1) << uid << told;
      // At most one replacement per original pod, none of them evicted again.
      EXPECT_LE(w.uids.size(), 4u) << told;
      EXPECT_LE(evictions.size(), 2u) << told;
      continue;
    }
    // In place: the same two pods throughout, never evicted nor restarted.
    EXPECT_EQ(w.uids, w.first_uids) << told << seen;
    EXPECT_TRUE(evictions.empty()) << told;
    for (const PodView& p : pods) {
      const ContainerView* c = p.container("app");
      ASSERT_NE(c, nullptr) << p.summary();
      EXPECT_EQ(c->restart_count, 0) << p.summary();
      // Moved from the initial requests (cpu 20m, memory 32Mi are outside the bounds).
      EXPECT_NE(c->requests, arm.deployment.containers[0].requests) << p.summary();
    }
    ASSERT_TRUE(w.resizes_when_settled)
        << "the requests never settled within the bounds" << w.last_seen << told;
    for (const auto& [uid, n] : resizes) {
      const auto before = w.resizes_when_settled->find(uid);
      const int settled = before == w.resizes_when_settled->end() ? 0 : before->second;
      EXPECT_LE(n - settled, kResizesAfterSettling) << uid << told;
    }
  }
}

}  // namespace
}  // namespace tailor::e2e
