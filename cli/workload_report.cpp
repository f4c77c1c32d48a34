#include "cli/workload_report.h"

#include <algorithm>
#include <set>
#include <tuple>

#include "policy/resources.h"

namespace tailor::cli {
namespace {

using std::chrono::hours;

std::optional<double> value_of(const kube::ResourceList& list, std::string_view resource) {
  const auto it = list.find(resource);
  if (it == list.end()) return std::nullopt;
  return it->second.as_double();
}

void take_current(ResourceFigures& f, const kube::ResourceRequirements& r, std::string_view res) {
  f.request = value_of(r.requests, res);
  f.limit = value_of(r.limits, res);
  // The API server defaults a request to its limit when only the limit is set.
  if (!f.request) f.request = f.limit;
}

void take_recommendation(ResourceFigures& f, const policy::RecommendedContainerResources& r,
                         std::string_view res) {
  f.target = value_of(r.target, res);
  f.lower_bound = value_of(r.lower_bound, res);
  f.upper_bound = value_of(r.upper_bound, res);
}

bool oom_in_window(const std::optional<kube::ContainerStateTerminated>& t, kube::TimePoint now,
                   std::chrono::nanoseconds window) {
  if (!t || t->reason != "OOMKilled") return false;
  const auto at = kube::try_parse_rfc3339(t->finished_at);
  // A termination without a time is counted: the kill happened, only its time is unknown.
  return !at || now - *at <= window;
}

// The policy's pods, and the pods of none.
struct Assigned {
  std::vector<std::vector<const kube::Pod*>> pods_of_policy;
  std::vector<std::pair<const kube::Pod*, std::vector<policy::WorkloadRef>>> unpoliced{};
};

Assigned assign(const std::vector<kube::Pod>& pods, const std::vector<ReportPolicy>& policies,
                const policy::OwnerLookup& owners) {
  std::vector<policy::PodRef> refs;
  refs.reserve(pods.size());
  for (const auto& p : pods)
    refs.push_back({&p.metadata, policy::controller_chain(p.metadata, owners)});
  std::vector<const policy::EffectivePolicy*> effective;
  for (const auto& p : policies) effective.push_back(&p.effective);
  const policy::Assignment a = policy::assign_policies(refs, effective);
  Assigned out{std::vector<std::vector<const kube::Pod*>>(policies.size())};
  for (std::size_t i = 0; i < pods.size(); ++i) {
    if (a.policy_of_pod[i]) {
      out.pods_of_policy[*a.policy_of_pod[i]].push_back(&pods[i]);
    } else {
      out.unpoliced.emplace_back(&pods[i], std::move(refs[i].chain));
    }
  }
  return out;
}

// Containers in the order the pods list them, then the recommendation's others.
std::vector<std::string> container_names(const std::vector<const kube::Pod*>& pods,
                                         const policy::PolicyStatus& status) {
  std::vector<std::string> names;
  auto add = [&](const std::string& n) {
    if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
  };
  for (const kube::Pod* p : pods) {
    for (const auto& c : p->spec.containers) add(c.name);
  }
  if (status.recommendation) {
    for (const auto& r : status.recommendation->container_recommendations) add(r.container_name);
  }
  return names;
}

ContainerRow container_row(const ReportPolicy& p, const std::vector<const kube::Pod*>& pods,
                           const std::string& container, const HistoryIndex& history,
                           kube::TimePoint now) {
  const policy::EffectivePolicy& e = p.effective;
  ContainerRow row{.ns = e.metadata.namespace_,
                   .policy_kind = std::string(policy::kind_of(e.api)),
                   .policy_name = e.metadata.name,
                   .container = container,
                   .pods = static_cast<int>(pods.size()),
                   .note = p.note};
  if (e.target_ref) {
    row.workload_kind = e.target_ref->kind;
    row.workload_name = e.target_ref->name;
  } else {
    row.workload_kind = "Pods";
    row.workload_name = "selected by " + e.metadata.name;
  }
  // The first pod (by name) that runs the container gives its current figures.
  bool current = false;
  for (const kube::Pod* pod : pods) {
    const kube::Container* c = kube::find_container(pod->spec, container);
    if (c && !current) {
      take_current(row.cpu, c->resources, kube::kResourceCpu);
      take_current(row.memory, c->resources, kube::kResourceMemory);
      current = true;
    }
    if (const kube::ContainerStatus* s = kube::find_container_status(pod->status, container)) {
      row.oom_kills_last_day += oom_kills_since(*s, now, hours(24));
      row.restarts += s->restart_count;
    }
  }
  if (p.status.recommendation) {
    for (const auto& r : p.status.recommendation->container_recommendations) {
      if (r.container_name != container) continue;
      take_recommendation(row.cpu, r, kube::kResourceCpu);
      take_recommendation(row.memory, r, kube::kResourceMemory);
    }
  }
  const auto h = history.find(history_key(e.api, row.ns, row.policy_name, container));
  if (h != history.end()) row.history = h->second;
  return row;
}

}  // namespace

std::optional<double> ResourceFigures::change() const {
  if (!target) return std::nullopt;
  return *target - request.value_or(0.0);
}

std::optional<double> CostChange::total() const {
  if (!cpu && !memory) return std::nullopt;
  return cpu.value_or(0.0) + memory.value_or(0.0);
}

CostChange monthly_cost_change(const ContainerRow& row, const Prices& prices) {
  CostChange c;
  if (row.pods == 0) return c;  // nothing runs: nothing to pay for either way
  const double pod_months = row.pods * kHoursPerMonth;
  if (auto d = row.cpu.change()) c.cpu = *d * prices.cpu_core_hour * pod_months;
  if (auto d = row.memory.change()) c.memory = *d / kGiB * prices.memory_gib_hour * pod_months;
  return c;
}

std::string history_key(policy::PolicyApi api, const std::string& ns, const std::string& policy,
                        const std::string& container) {
  return std::string(policy::kind_of(api)) + "/" + ns + "/" + policy + "/" + container;
}

int oom_kills_since(const kube::ContainerStatus& status, kube::TimePoint now,
                    std::chrono::nanoseconds window) {
  return oom_in_window(status.state.terminated, now, window) +
         oom_in_window(status.last_state.terminated, now, window);
}

namespace {

std::vector<ContainerRow> rows_of(Assigned& assigned, const std::vector<ReportPolicy>& policies,
                                  const HistoryIndex& history, kube::TimePoint now) {
  std::vector<ContainerRow> rows;
  for (std::size_t i = 0; i < policies.size(); ++i) {
    auto& mine = assigned.pods_of_policy[i];
    std::sort(mine.begin(), mine.end(), [](const kube::Pod* a, const kube::Pod* b) {
      return a->metadata.name < b->metadata.name;
    });
    auto names = container_names(mine, policies[i].status);
    if (names.empty()) names.push_back("");  // listed all the same: it acts on nothing
    for (const auto& name : names) {
      rows.push_back(container_row(policies[i], mine, name, history, now));
    }
  }
  std::sort(rows.begin(), rows.end(), [](const ContainerRow& a, const ContainerRow& b) {
    return std::tie(a.ns, a.workload_kind, a.workload_name, a.policy_kind, a.policy_name,
                    a.container) < std::tie(b.ns, b.workload_kind, b.workload_name, b.policy_kind,
                                            b.policy_name, b.container);
  });
  return rows;
}

std::vector<UnpolicedWorkload> unpoliced_of(Assigned& assigned,
                                            const std::vector<kube::Pod>& pods) {
  std::map<std::tuple<std::string, std::string, std::string>, UnpolicedWorkload> by_workload;
  for (auto& [pod, chain] : assigned.unpoliced) {
    // Finished pods (Jobs' done pods) run nothing to size.
    if (pod->status.phase == "Succeeded" || pod->status.phase == "Failed") continue;
    const std::string& ns = pod->metadata.namespace_;
    const std::string kind = chain.empty() ? "Pod" : chain.back().kind;
    const std::string name = chain.empty() ? pod->metadata.name : chain.back().name;
    UnpolicedWorkload& w = by_workload[{ns, kind, name}];
    w.ns = ns, w.kind = kind, w.name = name;
    w.pods.push_back(pod->metadata.name);
  }
  std::vector<UnpolicedWorkload> out;
  for (auto& [key, w] : by_workload) {
    std::sort(w.pods.begin(), w.pods.end());
    out.push_back(std::move(w));
  }
  // Requests from the first pod by name of each workload.
  for (UnpolicedWorkload& w : out) {
    for (const kube::Pod& p : pods) {
      if (p.metadata.namespace_ != w.ns || p.metadata.name != w.pods.front()) continue;
      for (const kube::Container& c : p.spec.containers) {
        ResourceFigures cpu, memory;
        take_current(cpu, c.resources, kube::kResourceCpu);
        take_current(memory, c.resources, kube::kResourceMemory);
        // Memory at its limit: what an OOM kill is judged against (docs/scoring.md).
        w.requests[c.name] = {cpu.request.value_or(0.0),
                              memory.limit.value_or(memory.request.value_or(0.0))};
      }
    }
  }
  return out;
}

}  // namespace

ReportRows report_rows(const std::vector<kube::Pod>& pods,
                       const std::vector<ReportPolicy>& policies, const policy::OwnerLookup& owners,
                       const HistoryIndex& history, kube::TimePoint now) {
  Assigned assigned = assign(pods, policies, owners);
  return {rows_of(assigned, policies, history, now), unpoliced_of(assigned, pods)};
}

}  // namespace tailor::cli
