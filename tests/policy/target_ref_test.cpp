#include "policy/target_ref.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "policy/resources.h"

namespace tailor::policy {
namespace {

using kube::ObjectMeta;
using kube::OwnerReference;

OwnerReference owner(const char* api_version, const char* kind, const char* name) {
  return OwnerReference{api_version, kind, name, std::string("uid-") + name, true, true};
}

ObjectMeta meta(const char* name, std::vector<OwnerReference> owners = {}) {
  ObjectMeta m;
  m.name = name;
  m.namespace_ = "ns";
  m.uid = std::string("uid-") + name;
  m.owner_references = std::move(owners);
  return m;
}

class FakeOwners : public OwnerLookup {
 public:
  void add(ObjectMeta m) {
    std::string uid = m.uid;
    objects_[uid] = std::move(m);
  }
  const ObjectMeta* find(std::string_view ns, const OwnerReference& ref) const override {
    auto it = objects_.find(ref.uid);
    return it != objects_.end() && it->second.namespace_ == ns ? &it->second : nullptr;
  }

 private:
  std::map<std::string, ObjectMeta> objects_;
};

EffectivePolicy targeting(const char* api_version, const char* kind, const char* name,
                          const char* created = "2026-01-01T00:00:00Z") {
  EffectivePolicy p;
  p.metadata = meta("policy");
  p.metadata.name = std::string("p-") + kind + "-" + name;
  p.metadata.creation_timestamp = created;
  p.target_ref = CrossVersionObjectReference{api_version, kind, name};
  return p;
}

struct ChainCase {
  const char* name;
  std::vector<ObjectMeta> owners;
  ObjectMeta pod;
  std::vector<std::string> chain;  // "Kind/name", nearest first
  EffectivePolicy policy;
  bool selected;
};

std::vector<std::string> describe(const std::vector<WorkloadRef>& chain) {
  std::vector<std::string> out;
  for (const auto& w : chain) out.push_back(w.kind + "/" + w.name);
  return out;
}

TEST(TargetRef, ResolvesThroughOwnerReferences) {
  std::vector<ChainCase> cases{
      {"Deployment",
       {meta("web-5d9", {owner("apps/v1", "Deployment", "web")}), meta("web")},
       meta("web-5d9-abc", {owner("apps/v1", "ReplicaSet", "web-5d9")}),
       {"ReplicaSet/web-5d9", "Deployment/web"},
       targeting("apps/v1", "Deployment", "web"),
       true},
      {"ReplicaSetOfADeploymentIsNotTheTarget",
       {meta("web-5d9", {owner("apps/v1", "Deployment", "web")}), meta("web")},
       meta("web-5d9-abc", {owner("apps/v1", "ReplicaSet", "web-5d9")}),
       {"ReplicaSet/web-5d9", "Deployment/web"},
       targeting("apps/v1", "ReplicaSet", "web-5d9"),
       false},
      {"BareReplicaSet",
       {meta("rs")},
       meta("rs-abc", {owner("apps/v1", "ReplicaSet", "rs")}),
       {"ReplicaSet/rs"},
       targeting("apps/v1", "ReplicaSet", "rs"),
       true},
      {"StatefulSet",
       {meta("db")},
       meta("db-0", {owner("apps/v1", "StatefulSet", "db")}),
       {"StatefulSet/db"},
       targeting("apps/v1", "StatefulSet", "db"),
       true},
      {"DaemonSet",
       {},
       meta("agent-x", {owner("apps/v1", "DaemonSet", "agent")}),
       {"DaemonSet/agent"},
       targeting("apps/v1", "DaemonSet", "agent"),
       true},
      {"CronJob",
       {meta("nightly-289", {owner("batch/v1", "CronJob", "nightly")}), meta("nightly")},
       meta("nightly-289-q", {owner("batch/v1", "Job", "nightly-289")}),
       {"Job/nightly-289", "CronJob/nightly"},
       targeting("batch/v1", "CronJob", "nightly"),
       true},
      {"Job",
       {meta("once")},
       meta("once-q", {owner("batch/v1", "Job", "once")}),
       {"Job/once"},
       targeting("batch/v1", "Job", "once"),
       true},
      // A VPA object naming the ReplicaSet of an Argo Rollout (docs/migrating-from-vpa.md,
      // "What differs"): pods are matched through the top-most owner only, so it selects none;
      // one naming the Rollout does.
      {"ReplicaSetOfAnArgoRolloutIsNotTheTarget",
       {meta("canary-7f", {owner("argoproj.io/v1alpha1", "Rollout", "canary")})},
       meta("canary-7f-x", {owner("apps/v1", "ReplicaSet", "canary-7f")}),
       {"ReplicaSet/canary-7f", "Rollout/canary"},
       targeting("apps/v1", "ReplicaSet", "canary-7f"),
       false},
      {"ArgoRollout",
       {meta("canary-7f", {owner("argoproj.io/v1alpha1", "Rollout", "canary")})},
       meta("canary-7f-x", {owner("apps/v1", "ReplicaSet", "canary-7f")}),
       {"ReplicaSet/canary-7f", "Rollout/canary"},
       targeting("argoproj.io/v1alpha1", "Rollout", "canary"),
       true},
      {"GroupMustMatch",
       {},
       meta("x", {owner("apps/v1", "Deployment", "web")}),
       {"Deployment/web"},
       targeting("example.com/v1", "Deployment", "web"),
       false},
      {"VersionDoesNotMatter",
       {},
       meta("x", {owner("apps/v1", "Deployment", "web")}),
       {"Deployment/web"},
       targeting("apps/v1beta2", "Deployment", "web"),
       true},
      {"NoApiVersionMatchesKindAndName",
       {},
       meta("x", {owner("apps/v1", "Deployment", "web")}),
       {"Deployment/web"},
       targeting("", "Deployment", "web"),
       true},
      {"UnownedPodNeedsASelector", {}, meta("bare"), {}, targeting("v1", "Pod", "bare"), false},
  };
  for (auto& c : cases) {
    FakeOwners owners;
    for (auto& o : c.owners) owners.add(o);
    auto chain = controller_chain(c.pod, owners);
    EXPECT_EQ(describe(chain), c.chain) << c.name;
    EXPECT_EQ(selects(c.policy, c.pod, chain), c.selected) << c.name;
  }
}

TEST(TargetRef, NonControllerOwnersAreIgnoredAndCyclesStop) {
  FakeOwners owners;
  ObjectMeta a = meta("a", {owner("x/v1", "Thing", "b")});
  ObjectMeta b = meta("b", {owner("x/v1", "Thing", "a")});
  owners.add(a);
  owners.add(b);
  EXPECT_EQ(describe(controller_chain(a, owners)), (std::vector<std::string>{"Thing/b"}));
  OwnerReference weak = owner("apps/v1", "Deployment", "web");
  weak.controller = false;
  EXPECT_TRUE(controller_chain(meta("p", {weak}), owners).empty());
}

TEST(TargetRef, OtherNamespacesNeverMatch) {
  EffectivePolicy p = targeting("apps/v1", "Deployment", "web");
  ObjectMeta pod = meta("x", {owner("apps/v1", "Deployment", "web")});
  pod.namespace_ = "other";
  EXPECT_FALSE(selects(p, pod, {WorkloadRef{"apps/v1", "Deployment", "web", "u"}}));
}

TEST(LabelSelectorMatch, LikeMetav1) {
  kube::StringMap labels{{"app", "web"}, {"tier", "front"}};
  auto sel = [](kube::StringMap match, std::vector<LabelSelectorRequirement> exprs = {}) {
    return LabelSelector{std::move(match), std::move(exprs)};
  };
  EXPECT_TRUE(matches(sel({}), labels));
  EXPECT_TRUE(matches(sel({{"app", "web"}}), labels));
  EXPECT_FALSE(matches(sel({{"app", "db"}}), labels));
  EXPECT_TRUE(matches(sel({}, {{"tier", "In", {"front", "back"}}}), labels));
  EXPECT_FALSE(matches(sel({}, {{"tier", "NotIn", {"front"}}}), labels));
  EXPECT_TRUE(matches(sel({}, {{"zone", "NotIn", {"a"}}}), labels));
  EXPECT_TRUE(matches(sel({}, {{"app", "Exists", {}}}), labels));
  EXPECT_FALSE(matches(sel({}, {{"app", "DoesNotExist", {}}}), labels));
  EXPECT_FALSE(matches(sel({}, {{"app", "Bogus", {}}}), labels));
}

TEST(AssignPolicies, OldestWinsAndLosersAreCounted) {
  EffectivePolicy old_dep = targeting("apps/v1", "Deployment", "web", "2026-01-01T00:00:00Z");
  EffectivePolicy new_dep = targeting("apps/v1", "Deployment", "web", "2026-02-01T00:00:00Z");
  new_dep.metadata.name = "newer";
  EffectivePolicy by_label;
  by_label.metadata = meta("labels");
  by_label.metadata.creation_timestamp = "2026-03-01T00:00:00Z";
  by_label.selector = LabelSelector{{{"app", "web"}}, {}};
  ObjectMeta p1 = meta("web-1", {owner("apps/v1", "Deployment", "web")});
  p1.labels = {{"app", "web"}};
  ObjectMeta p2 = meta("web-2", {owner("apps/v1", "Deployment", "web")});
  ObjectMeta lone = meta("lone");
  lone.labels = {{"app", "web"}};
  ObjectMeta none = meta("none");
  std::vector<WorkloadRef> web{WorkloadRef{"apps/v1", "Deployment", "web", "uid-web"}};
  std::vector<PodRef> pods{{&p1, web}, {&p2, web}, {&lone, {}}, {&none, {}}};
  // Listed newest first: order of the list must not matter.
  Assignment a = assign_policies(pods, {&by_label, &new_dep, &old_dep});
  EXPECT_EQ(a.policy_of_pod[0], 2u);
  EXPECT_EQ(a.policy_of_pod[1], 2u);
  EXPECT_EQ(a.policy_of_pod[2], 0u);
  EXPECT_EQ(a.policy_of_pod[3], std::nullopt);
  ASSERT_EQ(a.overlaps.size(), 2u);
  EXPECT_EQ(a.overlaps[0].policy, 1u);
  EXPECT_EQ(a.overlaps[0].winner, 2u);
  EXPECT_EQ(a.overlaps[0].pods, 2u);
  EXPECT_EQ(a.overlaps[1].policy, 0u);
  EXPECT_EQ(a.overlaps[1].pods, 1u);
  EXPECT_EQ(overlap_message(old_dep, 2),
            "2 pods are also selected by VerticalScalingPolicy p-Deployment-web, which is older "
            "and acts on them; this policy leaves them alone");
}

// The assignment indexes policies by namespace and target; it must pick what checking every
// policy in age order would: a mixed fleet of selector and targetRef policies (other kinds, API
// groups and namespaces among them) against pods with and without controllers.
TEST(AssignPolicies, SameAsCheckingEveryPolicyOldestFirst) {
  const char* namespaces[] = {"ns", "other"};
  const char* kinds[] = {"Deployment", "StatefulSet"};
  const char* groups[] = {"apps/v1", "", "example.com/v1"};
  std::vector<EffectivePolicy> policies;
  for (int i = 0; i < 60; ++i) {
    EffectivePolicy p;
    p.metadata = meta("policy");
    p.metadata.name = "p" + std::to_string(i);
    p.metadata.namespace_ = namespaces[i % 2];
    // Ages interleave selector and targetRef policies; i * 7 % 60 spreads them.
    p.metadata.creation_timestamp = "2026-01-01T00:" + std::to_string(10 + i * 7 % 60 / 2) + ":" +
                                    std::to_string(10 + i * 7 % 60 % 2 * 30) + "Z";
    if (i % 3 == 0) {
      p.selector = LabelSelector{{{"app", "w" + std::to_string(i % 4)}}, {}};
    } else {
      std::string name = "w" + std::to_string(i % 4);
      p.target_ref = CrossVersionObjectReference{groups[i % 3], kinds[i % 2], name};
    }
    policies.push_back(std::move(p));
  }
  std::vector<ObjectMeta> metas;
  std::vector<std::vector<WorkloadRef>> chains;
  for (int i = 0; i < 40; ++i) {
    ObjectMeta m = meta(("pod" + std::to_string(i)).c_str());
    m.namespace_ = namespaces[i % 2];
    m.labels = {{"app", "w" + std::to_string(i % 5)}};
    std::vector<WorkloadRef> chain;
    if (i % 4 != 3) {
      chain.push_back({"apps/v1", "ReplicaSet", "rs", "uid-rs"});
      chain.push_back({i % 3 == 0 ? "example.com/v1" : "apps/v1", kinds[i % 2],
                       "w" + std::to_string(i % 4), "uid-w"});
    }
    metas.push_back(std::move(m));
    chains.push_back(std::move(chain));
  }
  std::vector<PodRef> pods;
  for (std::size_t i = 0; i < metas.size(); ++i) pods.push_back({&metas[i], chains[i]});
  std::vector<const EffectivePolicy*> listed;
  for (const EffectivePolicy& p : policies) listed.push_back(&p);
  std::vector<std::size_t> by_age(policies.size());
  for (std::size_t i = 0; i < by_age.size(); ++i) by_age[i] = i;
  std::stable_sort(by_age.begin(), by_age.end(), [&](std::size_t a, std::size_t b) {
    const auto& ma = policies[a].metadata;
    const auto& mb = policies[b].metadata;
    return std::tie(ma.creation_timestamp, ma.namespace_, ma.name) <
           std::tie(mb.creation_timestamp, mb.namespace_, mb.name);
  });

  Assignment a = assign_policies(pods, listed);
  std::size_t assigned = 0, lost = 0;
  for (std::size_t pod = 0; pod < pods.size(); ++pod) {
    std::optional<std::size_t> expected;
    for (std::size_t index : by_age) {
      if (!selects(policies[index], metas[pod], chains[pod])) continue;
      if (expected) {
        ++lost;
      } else {
        expected = index;
      }
    }
    EXPECT_EQ(a.policy_of_pod[pod], expected) << metas[pod].name;
    if (expected) ++assigned;
  }
  std::size_t counted = 0;
  for (const auto& o : a.overlaps) counted += o.pods;
  EXPECT_EQ(counted, lost);
  // The fleet exercises both kinds of policy and overlaps (the test would prove little otherwise).
  EXPECT_GT(assigned, 10u);
  EXPECT_GT(lost, 5u);
}

TEST(ClaimVpa, DefaultRecommenderAndOthers) {
  EffectivePolicy vpa;
  vpa.api = PolicyApi::VerticalPodAutoscaler;
  EXPECT_TRUE(claim_vpa(vpa, {"tailor"}, false).ours);
  EXPECT_FALSE(claim_vpa(vpa, {"tailor"}, true).ours);
  vpa.recommenders = {"custom"};
  VpaClaim other = claim_vpa(vpa, {"tailor"}, false);
  EXPECT_FALSE(other.ours);
  EXPECT_EQ(other.reason,
            "spec.recommenders names \"custom\", not Tailor; left to that recommender");
  vpa.recommenders = {"custom", "tailor"};
  EXPECT_TRUE(claim_vpa(vpa, {"tailor"}, true).ours);
}

// The workloads a caller watches, by kind: the one of that kind and name, or "cannot tell".
class WatchedKinds : public FakeOwners {
 public:
  WatchedKinds(std::vector<std::string> kinds,
               std::vector<std::pair<std::string, ObjectMeta>> present)
      : kinds_(std::move(kinds)), present_(std::move(present)) {}
  std::optional<const ObjectMeta*> named(std::string_view ns, std::string_view kind,
                                         std::string_view name) const override {
    if (std::find(kinds_.begin(), kinds_.end(), kind) == kinds_.end()) return std::nullopt;
    for (const auto& [k, m] : present_) {
      if (k == kind && m.namespace_ == ns && m.name == name) return &m;
    }
    return nullptr;
  }

 private:
  std::vector<std::string> kinds_;
  std::vector<std::pair<std::string, ObjectMeta>> present_;
};

ObjectMeta controlled_by(const char* name, const char* api_version, const char* kind,
                         const char* owner, bool controller = true) {
  ObjectMeta m = meta(name);
  m.namespace_ = "ns";
  if (*owner) {
    m.owner_references.push_back({.api_version = api_version,
                                  .kind = kind,
                                  .name = owner,
                                  .uid = std::string(owner) + "-uid",
                                  .controller = controller});
  }
  return m;
}

// VPA's recommender's wording (cluster_feeder.go getSelector and validateTargetRef,
// target/fetcher.go): "Cannot read targetRef. Reason: <Kind> <namespace>/<name> does not exist";
// "The target <apiVersion>.<Kind>/<name> has a parent controller but it should point to a topmost
// well-known or scalable controller".
TEST(UnsupportedTarget, AsVpasRecommenderWordsIt) {
  const WatchedKinds owners(
      {"Deployment", "StatefulSet", "ReplicaSet", "Job", "CronJob"},
      {{"Deployment", controlled_by("web", "", "", "")},
       {"ReplicaSet", controlled_by("web-5d9", "apps/v1", "Deployment", "web")},
       {"Job", controlled_by("nightly-28", "batch/v1", "CronJob", "nightly")},
       {"ReplicaSet", controlled_by("canary-7f", "argoproj.io/v1alpha1", "Rollout", "canary")},
       {"ReplicaSet", controlled_by("adopted", "apps/v1", "Deployment", "web", false)}});
  const std::string parent =
      " has a parent controller but it should point to a topmost well-known or scalable "
      "controller";
  struct Case {
    const char* name;
    EffectivePolicy policy;
    std::string want;
  };
  EffectivePolicy selector;
  selector.selector = LabelSelector{};
  const Case cases[] = {
      {"a top-most Deployment", targeting("apps/v1", "Deployment", "web"), ""},
      {"a missing Deployment", targeting("apps/v1", "Deployment", "gone"),
       "Cannot read targetRef. Reason: Deployment ns/gone does not exist"},
      {"a missing StatefulSet", targeting("apps/v1", "StatefulSet", "web"),
       "Cannot read targetRef. Reason: StatefulSet ns/web does not exist"},
      {"a Deployment's ReplicaSet", targeting("apps/v1", "ReplicaSet", "web-5d9"),
       "The target apps/v1.ReplicaSet/web-5d9" + parent},
      {"a CronJob's Job", targeting("batch/v1", "Job", "nightly-28"),
       "The target batch/v1.Job/nightly-28" + parent},
      // A parent of a kind VPA does not know needs a scale subresource to count: not claimed.
      {"a custom controller's ReplicaSet", targeting("apps/v1", "ReplicaSet", "canary-7f"), ""},
      {"an owner that is not the controller", targeting("apps/v1", "ReplicaSet", "adopted"), ""},
      // A kind the caller does not watch (a custom scalable controller): not claimed missing.
      {"an unwatched kind", targeting("example.com/v1", "Shard", "gone"), ""},
      {"a selector policy", selector, ""},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(unsupported_target(c.policy, owners), c.want) << c.name;
  }
  // The default lookup cannot tell.
  EXPECT_EQ(unsupported_target(targeting("apps/v1", "Deployment", "gone"), FakeOwners{}), "");
}

// A missing target of each kind the controller watches (policy::owner_kinds(), the informers
// cluster_view.cpp looks targets up in), in upstream's words: target/fetcher.go getLabelSelector
// answers fmt.Errorf("%s %s/%s does not exist", kind, namespace, name) for its well-known
// controllers, and cluster_feeder.go prefixes "Cannot read targetRef. Reason: ". A
// ReplicationController, which VPA also knows, is not watched by Tailor: not claimed missing.
TEST(UnsupportedTarget, MissingTargetOfEveryWatchedKindAsVpasFetcherWordsIt) {
  std::vector<std::string> watched;
  for (const auto& [kind, type] : owner_kinds()) watched.push_back(kind);
  const WatchedKinds owners(watched, {});
  const std::pair<EffectivePolicy, std::string> cases[] = {
      {targeting("apps/v1", "Deployment", "gone"),
       "Cannot read targetRef. Reason: Deployment ns/gone does not exist"},
      {targeting("apps/v1", "StatefulSet", "gone"),
       "Cannot read targetRef. Reason: StatefulSet ns/gone does not exist"},
      {targeting("apps/v1", "DaemonSet", "gone"),
       "Cannot read targetRef. Reason: DaemonSet ns/gone does not exist"},
      {targeting("apps/v1", "ReplicaSet", "gone"),
       "Cannot read targetRef. Reason: ReplicaSet ns/gone does not exist"},
      {targeting("batch/v1", "Job", "gone"),
       "Cannot read targetRef. Reason: Job ns/gone does not exist"},
      {targeting("batch/v1", "CronJob", "gone"),
       "Cannot read targetRef. Reason: CronJob ns/gone does not exist"},
      {targeting("v1", "ReplicationController", "gone"), ""},
  };
  for (const auto& [policy, want] : cases) {
    EXPECT_EQ(unsupported_target(policy, owners), want) << policy.target_ref->kind;
  }
}

TEST(UnsupportedTarget, WellKnownControllersAreVpas) {
  for (const char* kind : {"CronJob", "DaemonSet", "Deployment", "Job", "ReplicaSet",
                           "ReplicationController", "StatefulSet"}) {
    EXPECT_TRUE(well_known_controller(kind)) << kind;
  }
  for (const char* kind : {"Rollout", "Pod", "deployment", ""}) {
    EXPECT_FALSE(well_known_controller(kind)) << kind;
  }
}

}  // namespace
}  // namespace tailor::policy
