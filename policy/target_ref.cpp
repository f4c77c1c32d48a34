#include "policy/target_ref.h"

#include <algorithm>
#include <iterator>
#include <numeric>
#include <unordered_map>

#include "kube/model/time.h"
#include "policy/resources.h"

namespace tailor::policy {
namespace {

bool requirement_matches(const LabelSelectorRequirement& req, const kube::StringMap& labels) {
  auto it = labels.find(req.key);
  bool has = it != labels.end();
  auto in_values = [&] {
    return has && std::find(req.values.begin(), req.values.end(), it->second) != req.values.end();
  };
  if (req.op == "In") return in_values();
  if (req.op == "NotIn") return !in_values();
  if (req.op == "Exists") return has;
  if (req.op == "DoesNotExist") return !has;
  return false;  // validation rejects unknown operators; never match by accident
}

bool ref_matches(const CrossVersionObjectReference& target, const WorkloadRef& workload) {
  if (target.kind != workload.kind || target.name != workload.name) return false;
  return target.api_version.empty() ||
         api_group(target.api_version) == api_group(workload.api_version);
}

// Older first; unparsable timestamps sort last; ties by namespace/name.
bool older(const EffectivePolicy& a, const EffectivePolicy& b) {
  auto ta = kube::try_parse_rfc3339(a.metadata.creation_timestamp);
  auto tb = kube::try_parse_rfc3339(b.metadata.creation_timestamp);
  if (ta.has_value() != tb.has_value()) return ta.has_value();
  if (ta && *ta != *tb) return *ta < *tb;
  if (a.metadata.namespace_ != b.metadata.namespace_) {
    return a.metadata.namespace_ < b.metadata.namespace_;
  }
  return a.metadata.name < b.metadata.name;
}

}  // namespace

std::string_view api_group(std::string_view api_version) {
  auto slash = api_version.find('/');
  return slash == std::string_view::npos ? std::string_view{} : api_version.substr(0, slash);
}

std::vector<WorkloadRef> controller_chain(const kube::ObjectMeta& object,
                                          const OwnerLookup& lookup) {
  std::vector<WorkloadRef> chain;
  // Chains are a few links long: a linear scan for a repeated uid beats a set per pod.
  auto seen = [&](const std::string& uid) {
    return uid == object.uid || std::any_of(chain.begin(), chain.end(),
                                            [&](const WorkloadRef& w) { return w.uid == uid; });
  };
  const kube::ObjectMeta* current = &object;
  while (const kube::OwnerReference* owner = kube::controller_of(*current)) {
    if (!owner->uid.empty() && seen(owner->uid)) break;
    chain.push_back(WorkloadRef{owner->api_version, owner->kind, owner->name, owner->uid});
    current = lookup.find(object.namespace_, *owner);
    if (!current) break;
  }
  return chain;
}

bool matches(const LabelSelector& selector, const kube::StringMap& labels) {
  for (const auto& [key, value] : selector.match_labels) {
    auto it = labels.find(key);
    if (it == labels.end() || it->second != value) return false;
  }
  return std::all_of(selector.match_expressions.begin(), selector.match_expressions.end(),
                     [&](const auto& req) { return requirement_matches(req, labels); });
}

bool selects(const EffectivePolicy& policy, const kube::ObjectMeta& pod,
             const std::vector<WorkloadRef>& chain) {
  if (policy.metadata.namespace_ != pod.namespace_) return false;
  if (policy.selector) return matches(*policy.selector, pod.labels);
  if (!policy.target_ref || chain.empty()) return false;
  return ref_matches(*policy.target_ref, chain.back());
}

namespace {

// Which policies can select a pod, so that each pod is checked against a few candidates, not
// every policy (10,000 policies x 100,000 pods): per namespace the selector policies, and per
// namespace, kind and name of a top-most controller the targetRef policies. Lists hold ranks
// (positions in age order), ascending.
class CandidateIndex {
 public:
  CandidateIndex(const std::vector<const EffectivePolicy*>& policies,
                 const std::vector<std::size_t>& by_age) {
    for (std::size_t rank = 0; rank < by_age.size(); ++rank) {
      const EffectivePolicy& p = *policies[by_age[rank]];
      if (p.selector) {
        by_namespace_[p.metadata.namespace_].push_back(rank);
      } else if (p.target_ref) {
        by_target_[key(p.metadata.namespace_, p.target_ref->kind, p.target_ref->name)].push_back(
            rank);
      }
    }
  }

  // Candidate ranks for the pod in age order.
  std::vector<std::size_t> candidates(const kube::ObjectMeta& pod,
                                      const std::vector<WorkloadRef>& chain) const {
    static const std::vector<std::size_t> kNone;
    auto s = by_namespace_.find(pod.namespace_);
    const auto& selectors = s == by_namespace_.end() ? kNone : s->second;
    const std::vector<std::size_t>* targets = &kNone;
    if (!chain.empty()) {
      auto t = by_target_.find(key(pod.namespace_, chain.back().kind, chain.back().name));
      if (t != by_target_.end()) targets = &t->second;
    }
    std::vector<std::size_t> out;
    out.reserve(selectors.size() + targets->size());
    std::merge(selectors.begin(), selectors.end(), targets->begin(), targets->end(),
               std::back_inserter(out));
    return out;
  }

 private:
  static std::string key(std::string_view ns, std::string_view kind, std::string_view name) {
    std::string k;
    k.reserve(ns.size() + kind.size() + name.size() + 2);
    k.append(ns).append(1, '/').append(kind).append(1, '/').append(name);
    return k;
  }

  std::unordered_map<std::string, std::vector<std::size_t>> by_namespace_, by_target_;
};

}  // namespace

Assignment assign_policies(const std::vector<PodRef>& pods,
                           const std::vector<const EffectivePolicy*>& policies) {
  std::vector<std::size_t> by_age(policies.size());
  std::iota(by_age.begin(), by_age.end(), 0);
  std::stable_sort(by_age.begin(), by_age.end(),
                   [&](std::size_t a, std::size_t b) { return older(*policies[a], *policies[b]); });
  CandidateIndex index(policies, by_age);
  Assignment out;
  out.policy_of_pod.resize(pods.size());
  for (std::size_t pod = 0; pod < pods.size(); ++pod) {
    for (std::size_t rank : index.candidates(*pods[pod].metadata, pods[pod].chain)) {
      std::size_t policy = by_age[rank];
      if (!selects(*policies[policy], *pods[pod].metadata, pods[pod].chain)) continue;
      auto& winner = out.policy_of_pod[pod];
      if (!winner) {
        winner = policy;
        continue;
      }
      auto it = std::find_if(out.overlaps.begin(), out.overlaps.end(), [&](const auto& o) {
        return o.policy == policy && o.winner == *winner;
      });
      if (it == out.overlaps.end()) {
        out.overlaps.push_back({policy, *winner, 1});
      } else {
        ++it->pods;
      }
    }
  }
  return out;
}

std::string overlap_message(const EffectivePolicy& winner, std::size_t pods) {
  return std::to_string(pods) + (pods == 1 ? " pod is" : " pods are") + " also selected by " +
         std::string(kind_of(winner.api)) + " " + winner.metadata.name +
         ", which is older and acts on them; this policy leaves them alone";
}

VpaClaim claim_vpa(const EffectivePolicy& vpa, const std::vector<std::string>& names,
                   bool upstream_vpa_running) {
  if (vpa.recommenders.empty()) {
    if (upstream_vpa_running) {
      return {false, "no spec.recommenders: the upstream VPA's default recommender acts on it"};
    }
    return {true, ""};
  }
  for (const auto& name : vpa.recommenders) {
    if (std::find(names.begin(), names.end(), name) != names.end()) return {true, ""};
  }
  return {false, "spec.recommenders names \"" + vpa.recommenders.front() +
                     "\", not Tailor; left to that recommender"};
}

bool well_known_controller(std::string_view kind) {
  static constexpr std::string_view kKinds[] = {"CronJob",    "DaemonSet",  "Deployment",
                                                "Job",        "ReplicaSet", "ReplicationController",
                                                "StatefulSet"};
  return std::find(std::begin(kKinds), std::end(kKinds), kind) != std::end(kKinds);
}

std::string unsupported_target(const EffectivePolicy& policy, const OwnerLookup& lookup) {
  if (!policy.target_ref) return "";
  const CrossVersionObjectReference& ref = *policy.target_ref;
  const std::string& ns = policy.metadata.namespace_;
  const std::optional<const kube::ObjectMeta*> target = lookup.named(ns, ref.kind, ref.name);
  if (!target) return "";
  if (!*target) {
    return "Cannot read targetRef. Reason: " + ref.kind + " " + ns + "/" + ref.name +
           " does not exist";
  }
  const kube::OwnerReference* parent = kube::controller_of(**target);
  // An owner of another kind stops VPA's walk unless it has a scale subresource, which only
  // discovery could tell: not claimed.
  if (!parent || !well_known_controller(parent->kind)) return "";
  return "The target " + ref.api_version + "." + ref.kind + "/" + ref.name +
         " has a parent controller but it should point to a topmost well-known or scalable "
         "controller";
}

}  // namespace tailor::policy
