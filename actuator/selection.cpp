#include "actuator/selection.h"

#include <algorithm>
#include <cmath>

namespace tailor::actuator {
namespace {

std::int32_t disruption_allowance(const WorkloadReplicas& w, double tolerance) {
  auto allowed = static_cast<std::int32_t>(std::floor(w.desired * tolerance));
  return std::max<std::int32_t>(1, allowed);
}

}  // namespace

Selection select_updates(std::vector<Candidate> candidates,
                         const std::map<std::string, WorkloadReplicas, std::less<>>& workloads,
                         const SelectionLimits& limits) {
  std::stable_sort(candidates.begin(), candidates.end(), [](const auto& a, const auto& b) {
    return more_urgent(a.priority, b.priority);
  });
  Selection out;
  std::map<std::string, std::int32_t, std::less<>> disrupted;
  std::size_t budget = limits.budget;
  for (const Candidate& c : candidates) {
    bool disruptive = c.disruptive || c.way == Way::Recreate;
    if (c.way == Way::Recreate && c.workload.empty()) {
      out.deferred.emplace_back(c.id, "no controller would recreate this pod");
      continue;
    }
    if (disruptive && !c.workload.empty()) {
      auto it = workloads.find(c.workload);
      WorkloadReplicas w = it != workloads.end() ? it->second : WorkloadReplicas{};
      std::int32_t& mine = disrupted[c.workload];
      if (w.ready - w.disrupted - mine < c.min_replicas) {
        out.deferred.emplace_back(
            c.id, "workload has " + std::to_string(w.ready - w.disrupted - mine) +
                      " live replicas, fewer than minReplicas " + std::to_string(c.min_replicas));
        continue;
      }
      if (w.disrupted + mine >= disruption_allowance(w, limits.eviction_tolerance)) {
        out.deferred.emplace_back(c.id, "workload disruption limit reached");
        continue;
      }
      if (budget == 0) {
        out.deferred.emplace_back(c.id, "global rate limit");
        continue;
      }
      ++mine;
    } else if (budget == 0) {
      out.deferred.emplace_back(c.id, "global rate limit");
      continue;
    }
    --budget;
    out.selected.push_back(c.id);
  }
  return out;
}

void TokenBucket::refill(kube::TimePoint now) {
  if (now > last) {
    double seconds = std::chrono::duration<double>(now - last).count();
    tokens = std::min(burst, tokens + seconds * per_second);
  }
  last = now;
}

}  // namespace tailor::actuator
