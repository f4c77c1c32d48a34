// What became of a resize, and what to do next. Read from the pod: the PodResizePending
// (Deferred | Infeasible) and PodResizeInProgress ("" | Error) conditions, or the legacy
// status.resize before 1.33. Per pod, a small state remembers the outcome and when it was first
// seen; the timers (deferredTimeout, inProgressTimeout) run from that moment, restart when the
// outcome changes, and survive a controller restart (the state serializes).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "actuator/pod_facts.h"
#include "kube/model/pod.h"
#include "kube/model/time.h"
#include "policy/effective.h"

namespace tailor::actuator {

enum class ResizeStatus {
  None,        // nothing reported; the spec may still be ahead of the status (see Proposed)
  Proposed,    // the node has not acted on the latest resize yet
  Deferred,    // PodResizePending/Deferred (legacy: Deferred, or an unknown value)
  Infeasible,  // PodResizePending/Infeasible
  InProgress,  // PodResizeInProgress with reason ""
  Error,       // PodResizeInProgress/Error
  Done,        // no condition, and the runtime reports what the spec asks
};
std::string_view to_string(ResizeStatus status);
std::optional<ResizeStatus> parse_resize_status(std::string_view text);

struct ObservedResize {
  ResizeStatus status = ResizeStatus::None;
  std::string message{};
};

// Conditions whose observedGeneration is older than metadata.generation speak of an earlier
// resize: the latest one is then Proposed.
ObservedResize observe_resize(const PodFacts& pod);
ObservedResize observe_resize(const kube::Pod& pod);

// "memory limit (N) below current usage (M)": the kubelet keeps retrying; recreating would not
// lower the usage.
bool is_memory_below_usage(std::string_view message);

// The tracked state of one pod's latest resize (serializable).
struct ResizeState {
  std::string pod_uid{};
  std::int64_t generation = 0;  // the pod generation the resize produced (0: unknown)
  ResizeStatus status = ResizeStatus::Proposed;
  std::string message{};
  kube::TimePoint since{};                // when `status` was first observed
  kube::TimePoint requested{};            // when the PATCH was sent
  kube::ResourceList requested_totals{};  // pod's requested cpu/memory (to see a drop later)
  bool operator==(const ResizeState&) const = default;
};

enum class Action {
  Wait,       // check again at wake_at (or on the next pod event)
  Done,       // settled: forget the state
  Recreate,   // evict; the webhook sizes the replacement
  RetryLater  // leave the pod as it is; try again when the recommendation changes
};
std::string_view to_string(Action action);

struct Decision {
  Action action = Action::Wait;
  std::string reason{};
  std::optional<kube::TimePoint> wake_at{};
};

struct Timeouts {
  std::chrono::seconds deferred = policy::kDefaultDeferredTimeout;
  std::chrono::seconds in_progress = policy::kDefaultInProgressTimeout;
};

// Advances `state` (restarting the timer when the outcome changed) and decides. A pod whose
// generation moved past the tracked resize was changed since (by someone else, or a new resize
// not recorded here): the state is done with, and the pod is judged afresh.
// InPlace mode never recreates: what would recreate waits or retries later instead.
Decision track(ResizeState& state, const PodFacts& pod, policy::UpdateMode mode,
               const Timeouts& timeouts, kube::TimePoint now);
Decision track(ResizeState& state, const kube::Pod& pod, policy::UpdateMode mode,
               const Timeouts& timeouts, kube::TimePoint now);

// InPlace mode, Infeasible: send the resize again once the recommendation asks for less than
// the infeasible one did (on some resource) — the node may fit it now.
bool should_resend_infeasible(const ResizeState& state, const kube::ResourceList& new_totals);

// JSON array of states, for a checkpoint; parse throws std::invalid_argument naming the problem.
std::string serialize_states(const std::vector<ResizeState>& states);
std::vector<ResizeState> parse_states(std::string_view json);

}  // namespace tailor::actuator
