#include "controller/app/workload_facts.h"

#include <algorithm>

namespace tailor::controller {
namespace {

ResourceValues values(const kube::ResourceList& list) {
  ResourceValues out;
  for (const auto& [name, q] : list) {
    if (name == "cpu" || name == "memory") out[name] = q.as_double();
  }
  return out;
}

void keep_largest(ResourceValues& into, const kube::ResourceList& list) {
  for (const auto& [name, v] : values(list)) into[name] = std::max(into[name], v);
}

// The recommendation the policy's status holds once the pass's updates are written.
const policy::PolicyStatus& status_after(
    const PolicyObject& p, const std::map<std::string, const policy::PolicyStatus*>& updated) {
  auto it = updated.find(p.key);
  return it == updated.end() ? p.status : *it->second;
}

void add_recommendations(PassWorkloads& out, const WorkloadContainer& workload,
                         const policy::PolicyStatus& status) {
  if (!status.recommendation) return;
  for (const auto& c : status.recommendation->container_recommendations) {
    WorkloadContainer key = workload;
    key.container = c.container_name;
    WorkloadFacts& f = out.facts[key];
    f.target = values(c.target);
    f.lower_bound = values(c.lower_bound);
    f.upper_bound = values(c.upper_bound);
    f.uncapped_target = values(c.uncapped_target);
  }
}

void add_pod(PassWorkloads& out, const actuator::PodFacts& pod, const WorkloadContainer& workload) {
  for (const kube::Container& c : pod.containers()) {
    WorkloadContainer key = workload;
    key.container = c.name;
    WorkloadFacts& f = out.facts[key];
    ++f.pods;
    const actuator::ContainerStatusFacts* s = pod.find_status(c.name);
    const kube::ResourceRequirements& ran = s && s->actual ? *s->actual : c.resources;
    keep_largest(f.requests, ran.requests);
    keep_largest(f.limits, ran.limits);
  }
}

}  // namespace

PassWorkloads pass_workloads(const PassInputs& in, const PassResult& result) {
  PassWorkloads out;
  std::map<std::string, const policy::PolicyStatus*> updated;
  for (const StatusUpdate& u : result.statuses) updated[u.key] = &u.status;
  std::map<std::string, WorkloadContainer> workload;  // policy key -> (ns, kind, name, "")
  for (const PolicyObject& p : in.policies) {
    if (!p.effective || !p.effective->target_ref || !p.claimed) continue;
    const auto& ref = *p.effective->target_ref;
    const WorkloadContainer w{p.metadata.namespace_, ref.kind, ref.name, ""};
    workload[p.key] = w;
    out.workload_of_policy[p.key] = {w.ns, w.kind, w.name};
    add_recommendations(out, w, status_after(p, updated));
  }
  for (const auto& pod : in.pods) {
    auto policy = result.policy_of_pod.find(pod->namespace_() + "/" + pod->name);
    if (policy == result.policy_of_pod.end()) continue;
    if (auto w = workload.find(policy->second); w != workload.end()) add_pod(out, *pod, w->second);
  }
  return out;
}

}  // namespace tailor::controller
