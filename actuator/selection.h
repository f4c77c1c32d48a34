// Which of the wanted updates go out in this pass: most urgent first, within a global rate
// limit (token bucket) and, for disruptive ones (recreation, or an in-place resize that restarts
// a container), within the workload's disruption limit and minReplicas.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "actuator/priority.h"
#include "kube/model/time.h"

namespace tailor::actuator {

enum class Way { InPlace, Recreate };

struct Candidate {
  std::size_t id = 0;      // the caller's index
  std::string workload{};  // key of the top controller (e.g. its uid); "" for a bare pod
  Way way = Way::InPlace;
  bool disruptive = false;  // implied for Recreate
  UpdatePriority priority{};
  std::int32_t min_replicas = 1;
};

struct WorkloadReplicas {
  std::int32_t desired = 0;    // spec.replicas (or pods expected)
  std::int32_t ready = 0;      // running and ready now
  std::int32_t disrupted = 0;  // being evicted, recreated or restarted now
};

struct SelectionLimits {
  // At most max(1, floor(desired * tolerance)) pods of a workload disrupted at once
  // (VPA's --eviction-tolerance, 0.5).
  double eviction_tolerance = 0.5;
  std::size_t budget = 0;  // updates the global rate limit allows now
};

struct Selection {
  std::vector<std::size_t> selected{};  // candidate ids, in the order to act
  std::vector<std::pair<std::size_t, std::string>> deferred{};  // id, why not now
};

Selection select_updates(std::vector<Candidate> candidates,
                         const std::map<std::string, WorkloadReplicas, std::less<>>& workloads,
                         const SelectionLimits& limits);

// The global rate limit as a value (so it can be checkpointed and tested without clocks).
struct TokenBucket {
  double per_second = 1;
  double burst = 10;
  double tokens = 10;
  kube::TimePoint last{};
  void refill(kube::TimePoint now);
  std::size_t available() const { return tokens < 0 ? 0 : static_cast<std::size_t>(tokens); }
  void take(std::size_t n) { tokens -= static_cast<double>(n); }
};

}  // namespace tailor::actuator
