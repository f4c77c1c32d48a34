#include "controller/app/workload_facts.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace tailor::controller {
namespace {

ResourceValues values(const kube::ResourceList& list) {
  ResourceValues out;
  if (const kube::Quantity* q = kube::find_resource(list, "cpu")) out.cpu = q->as_double();
  if (const kube::Quantity* q = kube::find_resource(list, "memory")) out.memory = q->as_double();
  return out;
}

double largest(double held, double seen) { return std::isnan(held) ? seen : std::max(held, seen); }

void keep_largest(ResourceValues& into, const kube::ResourceList& list) {
  const ResourceValues seen = values(list);
  if (!std::isnan(seen.cpu)) into.cpu = largest(into.cpu, seen.cpu);
  if (!std::isnan(seen.memory)) into.memory = largest(into.memory, seen.memory);
}

ContainerFacts& container_of(WorkloadFacts& w, const std::string& name) {
  for (ContainerFacts& c : w.containers) {
    if (c.container == name) return c;
  }
  return w.containers.emplace_back(ContainerFacts{.container = name});
}

void add_recommendations(WorkloadFacts& w, const policy::PolicyStatus& status) {
  if (!status.recommendation) return;
  for (const auto& r : status.recommendation->container_recommendations) {
    ContainerFacts& c = container_of(w, r.container_name);
    c.target = values(r.target);
    c.lower_bound = values(r.lower_bound);
    c.upper_bound = values(r.upper_bound);
    c.uncapped_target = values(r.uncapped_target);
  }
}

// `sized`: whether the workload's previous pod had the same interned spec and status
// (compact_pod.h: replicas share them until one is resized or killed), so only the count is new.
void add_pod(WorkloadFacts& w, const actuator::PodFacts& pod, bool sized) {
  for (const kube::Container& c : pod.containers()) {
    ContainerFacts& f = container_of(w, c.name);
    ++f.pods;
    if (sized) continue;
    const actuator::ContainerStatusFacts* s = pod.find_status(c.name);
    const kube::ResourceRequirements& ran = s && s->actual ? *s->actual : c.resources;
    keep_largest(f.requests, ran.requests);
    keep_largest(f.limits, ran.limits);
  }
}

}  // namespace

PassWorkloads pass_workloads(const PassInputs& in, const PassResult& result) {
  PassWorkloads out;
  out.reserve(in.policies.size());
  std::unordered_map<std::string, const policy::PolicyStatus*> updated;
  for (const StatusUpdate& u : result.statuses) updated[u.key] = &u.status;
  for (const PolicyObject& p : in.policies) {
    if (!p.effective || !p.effective->target_ref || !p.claimed) continue;
    const auto& ref = *p.effective->target_ref;
    WorkloadFacts& w = out[p.key];
    w = {.ns = p.metadata.namespace_, .kind = ref.kind, .name = ref.name, .containers = {}};
    // The recommendation the policy's status holds once the pass's updates are written.
    auto u = updated.find(p.key);
    add_recommendations(w, u == updated.end() ? p.status : *u->second);
  }
  std::string key;
  // workload -> its previous pod's (spec, status)
  std::unordered_map<const WorkloadFacts*, std::pair<const void*, const void*>> previous;
  for (const auto& pod : in.pods) {
    key.assign(pod->namespace_()).append("/").append(pod->name);
    auto policy = result.policy_of_pod.find(key);
    if (policy == result.policy_of_pod.end()) continue;
    auto w = out.find(policy->second);
    if (w == out.end()) continue;
    const std::pair<const void*, const void*> shared{pod->spec.get(), pod->status.get()};
    auto [last, first] = previous.try_emplace(&w->second, shared);
    add_pod(w->second, *pod, !first && last->second == shared);
    last->second = shared;
  }
  return out;
}

}  // namespace tailor::controller
