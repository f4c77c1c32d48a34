#include "controller/policy/target_ref.h"

#include <algorithm>
#include <numeric>
#include <set>

#include "controller/kube/model/time.h"

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

std::string kind_of(const EffectivePolicy& p) {
  return p.api == PolicyApi::VerticalPodAutoscaler ? "VerticalPodAutoscaler"
                                                   : "VerticalScalingPolicy";
}

}  // namespace

std::string_view api_group(std::string_view api_version) {
  auto slash = api_version.find('/');
  return slash == std::string_view::npos ? std::string_view{} : api_version.substr(0, slash);
}

std::vector<WorkloadRef> controller_chain(const kube::ObjectMeta& object,
                                          const OwnerLookup& lookup) {
  std::vector<WorkloadRef> chain;
  std::set<std::string, std::less<>> seen{object.uid};
  const kube::ObjectMeta* current = &object;
  while (const kube::OwnerReference* owner = kube::controller_of(*current)) {
    if (!owner->uid.empty() && !seen.insert(owner->uid).second) break;
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

Assignment assign_policies(const std::vector<PodRef>& pods,
                           const std::vector<const EffectivePolicy*>& policies) {
  std::vector<std::size_t> by_age(policies.size());
  std::iota(by_age.begin(), by_age.end(), 0);
  std::stable_sort(by_age.begin(), by_age.end(),
                   [&](std::size_t a, std::size_t b) { return older(*policies[a], *policies[b]); });
  Assignment out;
  out.policy_of_pod.resize(pods.size());
  for (std::size_t pod = 0; pod < pods.size(); ++pod) {
    for (std::size_t index : by_age) {
      if (!selects(*policies[index], *pods[pod].metadata, pods[pod].chain)) continue;
      auto& winner = out.policy_of_pod[pod];
      if (!winner) {
        winner = index;
        continue;
      }
      auto it = std::find_if(out.overlaps.begin(), out.overlaps.end(), [&](const auto& o) {
        return o.policy == index && o.winner == *winner;
      });
      if (it == out.overlaps.end()) {
        out.overlaps.push_back({index, *winner, 1});
      } else {
        ++it->pods;
      }
    }
  }
  return out;
}

std::string overlap_message(const EffectivePolicy& winner, std::size_t pods) {
  return std::to_string(pods) + (pods == 1 ? " pod is" : " pods are") + " also selected by " +
         kind_of(winner) + " " + winner.metadata.name +
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

}  // namespace tailor::policy
