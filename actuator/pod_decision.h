// The next step for one pod under its policy: everything above put together, in this order —
// a resize in flight is followed by its outcome (outcome.h); otherwise the pod is changed only
// when the update rule wants it (priority.h), in place when allowed and the plan is acceptable
// (resize_plan.h), else by recreation when allowed. Selection (selection.h) then decides which
// of these steps go out now.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "actuator/caps.h"
#include "actuator/hpa.h"
#include "actuator/outcome.h"
#include "actuator/priority.h"
#include "actuator/resize_plan.h"

namespace tailor::actuator {

struct PodInputs {
  const PodFacts* pod = nullptr;
  const policy::EffectivePolicy* policy = nullptr;
  std::vector<policy::RecommendedContainerResources> recommendations{};  // capped
  const LimitRangeItem* limit_range = nullptr;
  kube::ResourceList largest_allocatable{};
  std::vector<std::string> hpa_resources{};
  kube::TimePoint now{};
  std::optional<kube::TimePoint> last_change{};
  ResizeState* in_flight = nullptr;  // the tracked resize of this pod, if any (advanced here)
  UpdateRule rule{};
  // UpdateRule::Mode::StrategyDecides: per container, the requests the strategy's update rule
  // chose for this pod as target (capped like the recommendations; no bounds). Used instead of
  // the recommendations when the pod can be resized in place.
  std::vector<policy::RecommendedContainerResources> decided{};
};

enum class PodStep {
  Nothing,   // leave the pod as it is
  Wait,      // a resize is in flight; look again at wake_at or on the next pod event
  Resize,    // PATCH pods/{name}/resize with plan.body()
  Recreate,  // evict
};
std::string_view to_string(PodStep step);

struct PodDecision {
  PodStep step = PodStep::Nothing;
  std::string reason{};
  ResizePlan plan{};
  UpdatePriority priority{};
  std::optional<kube::TimePoint> wake_at{};
  bool forget_in_flight = false;  // the tracked resize settled: drop its state
};

// By value: the inputs are the caller's temporaries, and decide() adjusts them (the OOM hold, the
// strategy's requests) without a copy per pod.
PodDecision decide(PodInputs in);

}  // namespace tailor::actuator
