#include "controller/app/reconcile.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <unordered_set>

#include "actuator/resize_plan.h"
#include "controller/app/owner_chains.h"
#include "controller/app/quantities.h"
#include "kube/model/pod_resources.h"
#include "policy/status.h"

namespace tailor::controller {
namespace {

using policy::EffectivePolicy;
using policy::PolicyStatus;

std::string pod_key(const actuator::PodFacts& pod) { return pod.namespace_() + "/" + pod.name; }

bool ready(const actuator::PodFacts& pod) {
  return pod.status->phase == "Running" && pod.status->ready_condition;
}

// Each namespace's LimitRange items merged once per pass, not once per pod.
std::map<std::string, actuator::LimitRangeItem, std::less<>> merged_limit_ranges(
    const PassInputs& in) {
  std::map<std::string, actuator::LimitRangeItem, std::less<>> out;
  for (const auto& [ns, items] : in.limit_ranges) {
    if (auto merged = actuator::container_limit_range(items)) out.emplace(ns, std::move(*merged));
  }
  return out;
}

PolicyStatus next_status(const PolicyObject& p, const recommendation::ModelRegistry& models,
                         const policy::OwnerLookup& owners, std::size_t pods,
                         const std::string& overlap, const std::string& quota,
                         const std::string& hpa, kube::TimePoint now) {
  PolicyStatus s = p.status;
  policy::PolicyFacts facts{
      .problems = p.problems,
      .target_message = p.effective ? policy::unsupported_target(*p.effective, owners) : "",
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

// The models of each policy's recommended containers, found once per pass: the pass asks them
// for every pod of the workload, and each lookup by key is a walk of the registry's key tree
// comparing strings, cold at 30,000 models (ModelRegistry::Handle). Valid for the pass: the
// recommendations were made from these models, and models are forgotten only between passes.
class PassModels {
 public:
  using Handle = recommendation::ModelRegistry::Handle;
  PassModels(const recommendation::ModelRegistry& models, const std::vector<PolicyObject>& policies,
             const std::vector<std::vector<policy::RecommendedContainerResources>>& recs)
      : of_(policies.size()) {
    for (std::size_t i = 0; i < policies.size(); ++i) {
      for (const policy::RecommendedContainerResources& r : recs[i]) {
        of_[i].emplace_back(r.container_name, models.find({policies[i].key, r.container_name}));
      }
    }
  }
  // One policy's models, asked of the registry they are in.
  struct OfPolicy {
    const recommendation::ModelRegistry& registry;
    const PassModels& pass;
    std::size_t policy;
    // nullopt for a container without a recommendation or a model.
    std::optional<Handle> of(std::string_view container) const {
      for (const auto& [name, model] : pass.of_[policy]) {
        if (name == container) return model;
      }
      return std::nullopt;
    }
  };
  OfPolicy of_policy(const recommendation::ModelRegistry& models, std::size_t policy) const {
    return {models, *this, policy};
  }

 private:
  std::vector<std::vector<std::pair<std::string_view, std::optional<Handle>>>> of_;
};

// How long the shortest run of the pod's containers with a recommendation that ended in an OOM
// kill ran, as their last terminations show it (< 0: none); as VPA's updater, a container that
// is not scaled does not count. A kill before the pod's last change does not count either: VPA
// evicts, and the new pod has no last termination; in place the old one stays in the status,
// and would otherwise have every later target applied at once for the container's lifetime.
recommender::Seconds shortest_oom_run(
    const actuator::PodFacts& pod,
    const std::vector<policy::RecommendedContainerResources>& recommendations,
    std::optional<kube::TimePoint> last_change) {
  recommender::Seconds out = -1;
  for (const policy::RecommendedContainerResources& r : recommendations) {
    const actuator::ContainerStatusFacts* s = pod.find_status(r.container_name);
    if (!s || !s->oom_killed_after || !s->oom_killed_at) continue;
    if (last_change && *s->oom_killed_at < *last_change) continue;
    const recommender::Seconds ran =
        std::max<recommender::Seconds>(0, s->oom_killed_after->count());
    if (out < 0 || ran < out) out = ran;
  }
  return out;
}

// The requests the strategy's update rule chooses for each of the pod's containers that has a
// recommendation (ModelRegistry::decide, the rule replay scores), as targets capped like the
// recommendation. A request the rule leaves is the pod's own quantity, so rounding never makes
// a change the rule did not choose.
std::vector<policy::RecommendedContainerResources> decided_for_pod(
    const actuator::PodFacts& pod, const PolicyObject& p,
    const std::vector<policy::RecommendedContainerResources>& recommendations,
    const actuator::LimitRangeItem* limit_range, const PassModels::OfPolicy& models,
    std::optional<kube::TimePoint> last_change, kube::TimePoint now) {
  std::vector<policy::RecommendedContainerResources> out;
  const auto since = last_change ? last_change : pod.started;
  const recommender::Seconds age = since ? to_seconds(now) - to_seconds(*since) : 0;
  const recommender::Seconds oom_run = shortest_oom_run(pod, recommendations, last_change);
  const std::string key = pod_key(pod);
  for (const policy::RecommendedContainerResources& r : recommendations) {
    const kube::Container* c = pod.find_container(r.container_name);
    if (!c) continue;
    const recommender::Resources request = to_resources(c->resources.requests);
    kube::ResourceList target;
    for (std::string_view resource : {kube::kResourceCpu, kube::kResourceMemory}) {
      if (const kube::Quantity* q = kube::find_resource(c->resources.requests, resource)) {
        target.insert_or_assign(std::string(resource), *q);
      }
    }
    const auto model = models.of(r.container_name);
    const auto next =
        model ? models.registry.decide(*model, key, pod.uid, request, to_seconds(now), age, oom_run)
              : std::nullopt;
    if (next) {
      const kube::ResourceList chosen = to_resource_list(*next);
      if (next->cpu_cores != request.cpu_cores) {
        target.insert_or_assign(std::string(kube::kResourceCpu),
                                *kube::find_resource(chosen, kube::kResourceCpu));
      }
      if (next->memory_bytes != request.memory_bytes) {
        target.insert_or_assign(std::string(kube::kResourceMemory),
                                *kube::find_resource(chosen, kube::kResourceMemory));
      }
    }
    policy::RecommendedContainerResources d{
        .container_name = r.container_name, .target = target, .uncapped_target = target};
    out.push_back(actuator::cap_recommendation(
        d, *c, policy::container_policy_for(*p.effective, r.container_name), limit_range));
  }
  return out;
}

// VPA's confidence in a model, in days (its recommender's getConfidence): the days its samples
// span, at most the days of samples it has.
double confidence_days(const recommender::SampleSpan& s, recommender::Seconds period) {
  const double span = static_cast<double>(s.last - s.first) / recommender::kDay;
  const double covered = static_cast<double>(s.count) * static_cast<double>(period) /
                         static_cast<double>(recommender::kDay);
  return std::max(0.0, std::min(span, covered));
}

// The bounds a recreation is judged by: VPA's widening of a young model's bounds (its
// recommender's confidence multipliers: upper x (1 + 1/c), lower x (1 + 0.001/c)^-2, c in
// days), so that a fresh workload is not evicted on hours of data (issue 15: three evictions in
// 81 s) while its in-place resizes follow the strategy's rule. No confidence: no bounds.
void widen_for_recreation(policy::RecommendedContainerResources& r, double confidence) {
  auto scale = [](kube::ResourceList& list, double factor) {
    for (std::string_view resource : {kube::kResourceCpu, kube::kResourceMemory}) {
      const kube::Quantity* q = kube::find_resource(list, resource);
      if (!q) continue;
      recommender::Resources v;
      (resource == kube::kResourceCpu ? v.cpu_cores : v.memory_bytes) = q->as_double() * factor;
      const kube::ResourceList scaled = to_resource_list(v);
      const kube::Quantity* value = kube::find_resource(scaled, resource);  // none for 0
      list.insert_or_assign(std::string(resource), value ? *value : kube::Quantity());
    }
  };
  if (!(confidence > 0)) {
    scale(r.lower_bound, 0);
    scale(r.upper_bound, 0);  // zero: no upper bound (actuator/priority.cpp)
    return;
  }
  scale(r.lower_bound, std::pow(1 + 0.001 / confidence, -2));
  scale(r.upper_bound, 1 + 1 / confidence);
}

}  // namespace

// The policy's recommendations capped for each of the pod's containers (with the namespace's
// LimitRange); containers without one are left out.
std::vector<policy::RecommendedContainerResources> capped_for_pod(
    const std::vector<kube::Container>& containers, const EffectivePolicy& policy,
    const std::vector<policy::RecommendedContainerResources>& recs,
    const actuator::LimitRangeItem* limit_range) {
  std::vector<policy::RecommendedContainerResources> out;
  for (const kube::Container& c : containers) {
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
    out.push_back(policy::only_controlled(
        actuator::cap_recommendation(rec, kube::Container{.name = container}, cp, nullptr), cp));
  }
  return out;
}

const PolicyObject* find_policy(const std::vector<PolicyObject>& policies, const std::string& key,
                                policy::PolicyApi api) {
  for (const PolicyObject& p : policies) {
    if (p.key == key && p.api == api) return &p;
  }
  return nullptr;
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
  OwnerChains chains(*in.owners);
  std::vector<const OwnerChain*> chain_of_pod;
  chain_of_pod.reserve(in.pods.size());
  std::vector<policy::PodRef> refs;
  refs.reserve(in.pods.size());
  for (const auto& pod : in.pods) {
    chain_of_pod.push_back(&chains.of(*pod->shared_meta, pod->uid));
    refs.push_back({pod->shared_meta.get(), chain_of_pod.back()->chain});
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
    PolicyStatus s = next_status(p, models, *in.owners, pods_per_policy[i], overlaps[i],
                                 quota == state.quota_refusals.end() ? "" : quota->second,
                                 hpa_message[i], in.now);
    if (s.recommendation) recs[i] = s.recommendation->container_recommendations;
    if (!(s == p.status)) out.statuses.push_back({p.key, p.api, std::move(s)});
  }

  std::vector<actuator::Candidate> candidates;
  // Every pod that could act now. Only the few the selection picks get a plan, an action and a
  // patch body: holding a plan for each of 100,000 candidates cost hundreds of MB at the pass's
  // peak (bench/RESULTS.md "Scale"), so the picked ones are decided again from the same inputs.
  struct Pending {
    std::size_t pod;
    std::size_t policy;
    PodAction::Kind kind;
    std::string reason;
    std::optional<kube::TimePoint> last;
    std::optional<actuator::ResizeState> in_flight;  // as decide saw it (it advances the state)
  };
  std::vector<Pending> pending;
  std::optional<PassModels> pass_models;
  if (in.update_rule.mode == actuator::UpdateRule::Mode::StrategyDecides) {
    pass_models.emplace(models, in.policies, recs);
  }
  const auto limit_ranges = merged_limit_ranges(in);
  auto limit_range_of = [&](const actuator::PodFacts& pod) -> const actuator::LimitRangeItem* {
    auto it = limit_ranges.find(pod.namespace_());
    return it == limit_ranges.end() ? nullptr : &it->second;
  };
  auto inputs = [&](std::size_t i, std::size_t pi, std::optional<kube::TimePoint> last,
                    actuator::ResizeState* in_flight) {
    const actuator::PodFacts& pod = *in.pods[i];
    const EffectivePolicy& policy = *in.policies[pi].effective;
    const actuator::LimitRangeItem* lr = limit_range_of(pod);
    auto capped = capped_for_pod(pod.containers(), policy, recs[pi], lr);
    std::vector<policy::RecommendedContainerResources> decided;
    if (in.update_rule.mode == actuator::UpdateRule::Mode::StrategyDecides) {
      const PassModels::OfPolicy policy_models = pass_models->of_policy(models, pi);
      decided = decided_for_pod(pod, in.policies[pi], capped, lr, policy_models, last, in.now);
      // The recommendations now serve recreations only (in place, `decided` does).
      for (policy::RecommendedContainerResources& r : capped) {
        const auto model = policy_models.of(r.container_name);
        widen_for_recreation(
            r, model ? confidence_days(models.samples(*model), models.sample_period()) : 0);
      }
    }
    return actuator::PodInputs{.pod = &pod,
                               .policy = &policy,
                               .recommendations = std::move(capped),
                               .limit_range = lr,
                               .largest_allocatable = in.largest_allocatable,
                               .hpa_resources = hpa.pod_resources[i],
                               .now = in.now,
                               .last_change = last,
                               .in_flight = in_flight,
                               .rule = in.update_rule,
                               .decided = std::move(decided)};
  };
  // Counted by the chains' workload keys (hashed: 100,000 lookups per pass), ordered once after.
  std::unordered_map<std::string_view, actuator::WorkloadReplicas> replicas;
  std::unordered_set<std::string_view> seen;
  seen.reserve(in.pods.size());
  out.policy_of_pod.reserve(in.pods.size());
  for (std::size_t i = 0; i < in.pods.size(); ++i) {
    const actuator::PodFacts& pod = *in.pods[i];
    seen.insert(pod.uid);
    if (!assignment.policy_of_pod[i]) continue;
    std::size_t pi = active_index[*assignment.policy_of_pod[i]];
    const PolicyObject& po = in.policies[pi];
    const EffectivePolicy& policy = *po.effective;
    out.policy_of_pod[pod_key(pod)] = {po.key, po.api};
    const std::string& workload = chain_of_pod[i]->workload;
    actuator::WorkloadReplicas& w = replicas[workload];
    ++w.desired;
    if (ready(pod)) ++w.ready;
    if (pod.deleting) ++w.disrupted;
    if (policy.mode == policy::UpdateMode::Off || policy.mode == policy::UpdateMode::Initial) {
      continue;
    }
    const std::string& uid = pod.uid;
    auto tracked = state.resizes.find(uid);
    std::optional<kube::TimePoint> last;
    if (auto it = state.last_change.find(uid); it != state.last_change.end()) last = it->second;
    std::optional<actuator::ResizeState> before;
    if (tracked != state.resizes.end()) before = tracked->second;
    actuator::PodDecision d = actuator::decide(
        inputs(i, pi, last, tracked == state.resizes.end() ? nullptr : &tracked->second));
    if (d.forget_in_flight && tracked != state.resizes.end()) {
      state.last_change[uid] = tracked->second.requested;
      state.resizes.erase(tracked);
    }
    if (d.step == actuator::PodStep::Nothing) continue;
    if (d.step == actuator::PodStep::Wait) {
      out.skipped.emplace_back(pod_key(pod), "waiting: " + d.reason);
      continue;
    }
    if (const auto refused = state.refused_resizes.find(uid);
        d.step == actuator::PodStep::Resize && refused != state.refused_resizes.end() &&
        !actuator::may_resend(refused->second, d.plan.body(), pod.generation)) {
      out.skipped.emplace_back(pod_key(pod),
                               "waiting: the API refused this resize: " + refused->second.message);
      continue;
    }
    actuator::Candidate candidate{.id = pending.size(),
                                  .workload = workload,
                                  .priority = d.priority,
                                  .min_replicas = policy.min_replicas};
    candidate.way =
        d.step == actuator::PodStep::Resize ? actuator::Way::InPlace : actuator::Way::Recreate;
    candidates.push_back(std::move(candidate));
    pending.push_back({.pod = i,
                       .policy = pi,
                       .kind = d.step == actuator::PodStep::Resize ? PodAction::Kind::Resize
                                                                   : PodAction::Kind::Recreate,
                       .reason = std::move(d.reason),
                       .last = last,
                       .in_flight = std::move(before)});
  }
  std::map<std::string, actuator::WorkloadReplicas, std::less<>> workloads;
  for (const auto& [key, w] : replicas) workloads.emplace(key, w);
  actuator::Selection sel = actuator::select_updates(
      std::move(candidates), workloads,
      {.eviction_tolerance = in.eviction_tolerance, .budget = in.update_budget});
  for (std::size_t id : sel.selected) {
    Pending& p = pending[id];
    const actuator::PodFacts& pod = *in.pods[p.pod];
    PodAction action{.kind = p.kind,
                     .ns = pod.namespace_(),
                     .name = pod.name,
                     .uid = pod.uid,
                     .policy = in.policies[p.policy].key,
                     .policy_api = in.policies[p.policy].api,
                     .reason = std::move(p.reason),
                     .generation = pod.generation};
    if (p.kind == PodAction::Kind::Resize) {
      actuator::ResizePlan plan =
          actuator::decide(inputs(p.pod, p.policy, p.last, p.in_flight ? &*p.in_flight : nullptr))
              .plan;
      action.body = plan.body();
      action.totals = actuator::requests_after(*pod.spec, plan);
      for (const actuator::ContainerChange& c : plan.changes) {
        action.applied.emplace_back(c.name, to_resources(c.after.requests));
      }
    }
    out.actions.push_back(std::move(action));
  }
  for (const auto& [id, why] : sel.deferred) {
    out.skipped.emplace_back(pod_key(*in.pods[pending[id].pod]), why);
  }
  std::erase_if(state.resizes, [&](const auto& kv) { return !seen.count(kv.first); });
  std::erase_if(state.last_change, [&](const auto& kv) { return !seen.count(kv.first); });
  std::erase_if(state.refused_resizes, [&](const auto& kv) { return !seen.count(kv.first); });
  return out;
}

}  // namespace tailor::controller
