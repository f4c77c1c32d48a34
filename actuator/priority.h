// Which pods to change and in what order (VPA updater's priority, adapted to in-place resizes):
//  - a controlled request outside [lowerBound, upperBound]: now;
//  - a container OOM-killed since the last change, whose memory target is above its request: now;
//  - else when the last change (or the pod's start) is at least min_age ago and the relative
//    change, summed over cpu and memory of |Σ request − Σ target| / Σ request, is at least
//    min_relative_change.
// Or, in mode StrategyDecides, for a pod that can be resized in place: the recommendations'
// targets are the requests the strategy's own update rule chose for this pod
// (ModelRegistry::decide, the rule replay scores), and any change of a controlled request is
// wanted now (reason StrategyRule); the OOM reason, the OOM hold, the caps and the budget are
// the same. A pod that can only be recreated keeps the target rule above: a restart is not
// spent on every move the strategy would make in place.
// Memory of a container OOM-killed within oom_hold is never lowered (hold_memory_after_oom).
// Order: scale-ups first, then pods outside their bounds, then the larger relative change.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "actuator/pod_facts.h"
#include "kube/model/pod.h"
#include "kube/model/time.h"
#include "policy/effective.h"

namespace tailor::actuator {

struct UpdateRule {
  enum class Mode {
    Target,           // change to the target by the rule above
    StrategyDecides,  // in place: the strategy's update rule chose the requests
  };
  Mode mode = Mode::Target;
  // In place costs no restart, so Tailor waits far less than VPA's 12 h between changes.
  std::chrono::seconds min_age{std::chrono::hours(1)};
  // StrategyDecides: a pod that can only be recreated waits VPA's 12 h (its updater's
  // podLifetimeUpdateThreshold) before a change within the bounds, since a recreation costs a
  // restart; the controller also widens those bounds while the model is young (reconcile.cpp).
  std::chrono::seconds recreate_min_age{std::chrono::hours(12)};
  double min_relative_change = 0.10;
  // After an OOM kill a container's memory is not lowered for this long, whatever the model
  // says: a model that has not heard of the kill yet, or whose bump has decayed, must not take
  // away the memory the container was killed for lacking. The controller sets it to the
  // default strategy's own OOM hold (recommender/tailored_strategy.h, oom_hold: 3 days).
  std::chrono::seconds oom_hold{std::chrono::hours(72)};
};

enum class UpdateReason { None, OutsideBounds, OomKilled, RelativeChange, StrategyRule };
std::string_view to_string(UpdateReason reason);

struct UpdatePriority {
  UpdateReason reason = UpdateReason::None;
  bool scale_up = false;  // some controlled request would grow
  bool outside_bounds = false;
  double relative_change = 0;
  bool wanted() const { return reason != UpdateReason::None; }
};

struct UpdateInputs {
  const kube::Pod* pod = nullptr;
  const policy::EffectivePolicy* policy = nullptr;
  std::vector<policy::RecommendedContainerResources> recommendations{};  // capped
  std::vector<std::string> hpa_resources{};
  kube::TimePoint now{};
  // When Tailor last changed this pod; nullopt: never (the pod's start counts).
  std::optional<kube::TimePoint> last_change{};
};

// The same inputs, the lists borrowed from the caller: decide() holds them already for the pod,
// and copying its recommendations (four resource lists a container) into UpdateInputs allocated
// for every one of the 100,000 pods of a pass.
struct UpdateView {
  const PodFacts* pod;
  const policy::EffectivePolicy* policy;
  const std::vector<policy::RecommendedContainerResources>& recommendations;
  const std::vector<std::string>& hpa_resources;
  kube::TimePoint now;
  std::optional<kube::TimePoint> last_change;
};

UpdatePriority update_priority(const UpdateInputs& in, const UpdateRule& rule = {});
UpdatePriority update_priority_view(const UpdateView& in, const UpdateRule& rule = {});

// Raises the memory target and upper bound of each container of `pod` OOM-killed within `hold`
// before `now` (lastState OOMKilled, finishedAt) to its memory request, so that no change
// lowers it; returns whether any recommendation changed. The limit follows the request
// (resize_plan.h keeps their ratio), so it is not lowered either.
bool hold_memory_after_oom(const PodFacts& pod,
                           std::vector<policy::RecommendedContainerResources>& recommendations,
                           kube::TimePoint now, std::chrono::seconds hold);

// Strict weak order: a before b when a is more urgent.
bool more_urgent(const UpdatePriority& a, const UpdatePriority& b);

}  // namespace tailor::actuator
