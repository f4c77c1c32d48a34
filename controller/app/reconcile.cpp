#include "controller/app/reconcile.h"

#include <algorithm>
#include <unordered_set>

#include "actuator/resize_plan.h"
#include "controller/app/quantities.h"
#include "controller/kube/model/pod_resources.h"
#include "controller/policy/status.h"

namespace tailor::controller {
namespace {

using policy::EffectivePolicy;
using policy::PolicyStatus;

std::string pod_key(const kube::Pod& pod) {
  return pod.metadata.namespace_ + "/" + pod.metadata.name;
}

bool ready(const kube::Pod& pod) {
  const kube::PodCondition* c = kube::find_condition(pod.status, "Ready");
  return pod.status.phase == "Running" && c && c->status == "True";
}

// The workload a pod belongs to for disruption limits: its top-most controller.
std::string workload_of(const std::vector<policy::WorkloadRef>& chain, const kube::Pod& pod) {
  if (chain.empty()) return "";
  const policy::WorkloadRef& top = chain.back();
  return pod.metadata.namespace_ + "/" + top.kind + "/" + top.name;
}

PolicyStatus next_status(const PolicyObject& p, const recommendation::ModelRegistry& models,
                         std::size_t pods, const std::string& overlap, const std::string& quota,
                         const std::string& hpa, kube::TimePoint now) {
  PolicyStatus s = p.status;
  policy::PolicyFacts facts{.problems = p.problems,
                            .pods_matched = pods > 0,
                            .overlap_message = overlap,
                            .hpa_message = hpa,
                            .quota_message = quota};
  if (p.effective) {
    auto recs = policy_recommendations(*p.effective, p.key, models, now);
    facts.has_recommendation = !recs.empty();
    if (!recs.empty()) s.recommendation = policy::RecommendedPodResources{recs};
  }
  policy::update_conditions(p.api, facts, kube::format_rfc3339(now), s.conditions);
  return s;
}

kube::ResourceList totals_after(const kube::Pod& pod, const actuator::ResizePlan& plan) {
  kube::Pod after = pod;
  for (const actuator::ContainerChange& change : plan.changes) {
    for (kube::Container& c : after.spec.containers) {
      if (c.name == change.name) c.resources = change.after;
    }
  }
  return kube::pod_requests(after);
}

}  // namespace

// The policy's recommendations capped for each of the pod's containers (with the namespace's
// LimitRange); containers without one are left out.
std::vector<policy::RecommendedContainerResources> capped_for_pod(
    const kube::Pod& pod, const EffectivePolicy& policy,
    const std::vector<policy::RecommendedContainerResources>& recs,
    const actuator::LimitRangeItem* limit_range) {
  std::vector<policy::RecommendedContainerResources> out;
  for (const kube::Container& c : pod.spec.containers) {
    auto it = std::find_if(recs.begin(), recs.end(),
                           [&](const auto& r) { return r.container_name == c.name; });
    if (it == recs.end()) continue;
    out.push_back(actuator::cap_recommendation(*it, c, policy::container_policy_for(policy, c.name),
                                               limit_range));
  }
  return out;
}

recommender::Seconds to_seconds(kube::TimePoint t) {
  return std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count();
}

std::vector<policy::RecommendedContainerResources> policy_recommendations(
    const EffectivePolicy& policy, const std::string& key,
    const recommendation::ModelRegistry& models, kube::TimePoint now) {
  std::vector<policy::RecommendedContainerResources> out;
  for (const std::string& container : models.containers(key)) {
    policy::EffectiveContainerPolicy cp = policy::container_policy_for(policy, container);
    if (cp.mode == policy::ContainerMode::Off) continue;
    auto r = models.recommend({key, container}, to_seconds(now));
    if (!r) continue;
    policy::RecommendedContainerResources rec{.container_name = container,
                                              .target = to_resource_list(r->target),
                                              .lower_bound = to_resource_list(r->lower_bound),
                                              .upper_bound = to_resource_list(r->upper_bound),
                                              .uncapped_target = to_resource_list(r->target)};
    out.push_back(
        actuator::cap_recommendation(rec, kube::Container{.name = container}, cp, nullptr));
  }
  return out;
}

PassResult reconcile(const PassInputs& in, const recommendation::ModelRegistry& models,
                     TrackedState& state) {
  PassResult out;
  std::vector<const EffectivePolicy*> active;
  std::vector<std::size_t> active_index;
  for (std::size_t i = 0; i < in.policies.size(); ++i) {
    const PolicyObject& p = in.policies[i];
    if (p.effective && p.claimed) {
      active.push_back(&*p.effective);
      active_index.push_back(i);
    }
  }
  std::vector<policy::PodRef> refs;
  for (const auto& pod : in.pods) {
    refs.push_back({&pod->metadata, policy::controller_chain(pod->metadata, *in.owners)});
  }
  policy::Assignment assignment = policy::assign_policies(refs, active);

  std::vector<std::size_t> pods_per_policy(in.policies.size(), 0);
  std::vector<std::string> overlaps(in.policies.size());
  for (const auto& o : assignment.overlaps) {
    std::string& message = overlaps[active_index[o.policy]];
    if (message.empty()) message = policy::overlap_message(*active[o.winner], o.pods);
  }
  for (const auto& which : assignment.policy_of_pod) {
    if (which) ++pods_per_policy[active_index[*which]];
  }
  std::vector<std::vector<policy::RecommendedContainerResources>> recs(in.policies.size());
  PassHpaConflicts hpa = hpa_conflicts(in.hpas, active, refs, assignment.policy_of_pod);
  std::vector<std::string> hpa_message(in.policies.size());
  for (std::size_t a = 0; a < active.size(); ++a) {
    hpa_message[active_index[a]] = hpa.policies[a].message;
  }
  for (std::size_t i = 0; i < in.policies.size(); ++i) {
    const PolicyObject& p = in.policies[i];
    if (!p.claimed) continue;
    if (!hpa_message[i].empty()) out.hpa_conflicts[p.key] = hpa_message[i];
    auto quota = state.quota_refusals.find(p.key);
    PolicyStatus s = next_status(p, models, pods_per_policy[i], overlaps[i],
                                 quota == state.quota_refusals.end() ? "" : quota->second,
                                 hpa_message[i], in.now);
    if (s.recommendation) recs[i] = s.recommendation->container_recommendations;
    if (!(s == p.status)) out.statuses.push_back({p.key, p.api, std::move(s)});
  }

  std::vector<actuator::Candidate> candidates;
  // Every pod that could act now; only the few the selection picks get a patch body (a
  // 100,000-pod pass would otherwise serialize tens of thousands of patches it never sends).
  struct Pending {
    PodAction action;
    actuator::ResizePlan plan;
    const kube::Pod* pod;
  };
  std::vector<Pending> pending;
  std::map<std::string, actuator::WorkloadReplicas, std::less<>> workloads;
  std::unordered_set<std::string> seen;
  seen.reserve(in.pods.size());
  for (std::size_t i = 0; i < in.pods.size(); ++i) {
    const kube::Pod& pod = *in.pods[i];
    seen.insert(pod.metadata.uid);
    if (!assignment.policy_of_pod[i]) continue;
    std::size_t pi = active_index[*assignment.policy_of_pod[i]];
    const PolicyObject& po = in.policies[pi];
    const EffectivePolicy& policy = *po.effective;
    out.policy_of_pod[pod_key(pod)] = po.key;
    std::string workload = workload_of(refs[i].chain, pod);
    actuator::WorkloadReplicas& w = workloads[workload];
    ++w.desired;
    if (ready(pod)) ++w.ready;
    if (!pod.metadata.deletion_timestamp.empty()) ++w.disrupted;
    if (policy.mode == policy::UpdateMode::Off || policy.mode == policy::UpdateMode::Initial) {
      continue;
    }
    const std::string& uid = pod.metadata.uid;
    auto tracked = state.resizes.find(uid);
    auto lr_items = in.limit_ranges.find(pod.metadata.namespace_);
    std::optional<actuator::LimitRangeItem> lr;
    if (lr_items != in.limit_ranges.end()) lr = actuator::container_limit_range(lr_items->second);
    std::optional<kube::TimePoint> last;
    if (auto it = state.last_change.find(uid); it != state.last_change.end()) last = it->second;
    actuator::PodDecision d = actuator::decide(
        {.pod = &pod,
         .policy = &policy,
         .recommendations = capped_for_pod(pod, policy, recs[pi], lr ? &*lr : nullptr),
         .limit_range = lr ? &*lr : nullptr,
         .largest_allocatable = in.largest_allocatable,
         .hpa_resources = hpa.pod_resources[i],
         .now = in.now,
         .last_change = last,
         .in_flight = tracked == state.resizes.end() ? nullptr : &tracked->second,
         .rule = in.update_rule});
    if (d.forget_in_flight && tracked != state.resizes.end()) {
      state.last_change[uid] = tracked->second.requested;
      state.resizes.erase(tracked);
    }
    if (d.step == actuator::PodStep::Nothing) continue;
    if (d.step == actuator::PodStep::Wait) {
      out.skipped.emplace_back(pod_key(pod), "waiting: " + d.reason);
      continue;
    }
    PodAction action{.ns = pod.metadata.namespace_,
                     .name = pod.metadata.name,
                     .uid = uid,
                     .policy = po.key,
                     .reason = d.reason};
    actuator::Candidate candidate{.id = pending.size(),
                                  .workload = workload,
                                  .priority = d.priority,
                                  .min_replicas = policy.min_replicas};
    if (d.step == actuator::PodStep::Resize) {
      candidate.way = actuator::Way::InPlace;
    } else {
      action.kind = PodAction::Kind::Recreate;
      candidate.way = actuator::Way::Recreate;
    }
    candidates.push_back(candidate);
    pending.push_back({std::move(action), std::move(d.plan), &pod});
  }
  actuator::Selection sel = actuator::select_updates(
      std::move(candidates), workloads,
      {.eviction_tolerance = in.eviction_tolerance, .budget = in.update_budget});
  for (std::size_t id : sel.selected) {
    Pending& p = pending[id];
    if (p.action.kind == PodAction::Kind::Resize) {
      p.action.body = p.plan.body();
      p.action.totals = totals_after(*p.pod, p.plan);
    }
    out.actions.push_back(std::move(p.action));
  }
  for (const auto& [id, why] : sel.deferred) {
    out.skipped.emplace_back(pending[id].action.ns + "/" + pending[id].action.name, why);
  }
  std::erase_if(state.resizes, [&](const auto& kv) { return !seen.count(kv.first); });
  std::erase_if(state.last_change, [&](const auto& kv) { return !seen.count(kv.first); });
  return out;
}

}  // namespace tailor::controller
