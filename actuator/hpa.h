// A workload whose HorizontalPodAutoscaler scales on CPU or memory utilization is not fought:
// changing requests would move the HPA's utilization signal. That resource is left alone.
#pragma once

#include <string>
#include <vector>

#include "controller/policy/effective.h"
#include "controller/policy/target_ref.h"

namespace tailor::actuator {

// The part of an autoscaling/v2 HorizontalPodAutoscaler that matters here.
struct HorizontalScaler {
  std::string name{};
  policy::CrossVersionObjectReference scale_target_ref{};
  // Resource names of its Resource and ContainerResource metrics ("cpu", "memory", ...).
  std::vector<std::string> resources{};
  std::string namespace_{};
};

struct HpaConflict {
  std::vector<std::string> resources{};  // cpu and/or memory, left alone
  std::string message{};                 // for the HorizontalScalerConflict condition; "" if none
};

// HPAs (of one namespace) that scale one of `workloads` — a pod's controller chain, or the
// workloads of a policy's pods — on cpu or memory.
HpaConflict hpa_conflict(const std::vector<policy::WorkloadRef>& workloads,
                         const std::vector<HorizontalScaler>& hpas);

// HPAs of the policy's namespace; only those targeting the policy's targetRef count.
HpaConflict hpa_conflict(const policy::EffectivePolicy& policy,
                         const std::vector<HorizontalScaler>& hpas);

}  // namespace tailor::actuator
