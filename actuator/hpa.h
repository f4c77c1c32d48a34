// A workload whose HorizontalPodAutoscaler scales on CPU or memory utilization is not fought:
// changing requests would move the HPA's utilization signal. That resource is left alone.
#pragma once

#include <string>
#include <vector>

#include "policy/effective.h"
#include "policy/target_ref.h"

namespace tailor::actuator {

// The part of an autoscaling/v2 HorizontalPodAutoscaler that matters here.
struct HorizontalScaler {
  std::string name{};
  policy::CrossVersionObjectReference scale_target_ref{};
  // What its metrics scale on: a Resource metric's resource name ("cpu"), a ContainerResource
  // metric's "container/resource" ("app/cpu": that container only; names cannot hold '/').
  std::vector<std::string> resources{};
  std::string namespace_{};
};

struct HpaConflict {
  std::vector<std::string> resources{};  // cpu, memory, or "container/cpu"...: left alone
  std::string message{};                 // for the HorizontalScalerConflict condition; "" if none
};

// Whether a container's resource is left to an HPA, given a conflict's resources.
bool left_to_hpa(const std::vector<std::string>& hpa_resources, std::string_view container,
                 std::string_view resource);

// HPAs (of one namespace) that scale one of `workloads` — a pod's controller chain, or the
// workloads of a policy's pods — on cpu or memory.
HpaConflict hpa_conflict(const std::vector<policy::WorkloadRef>& workloads,
                         const std::vector<HorizontalScaler>& hpas);

// HPAs of the policy's namespace; only those targeting the policy's targetRef count.
HpaConflict hpa_conflict(const policy::EffectivePolicy& policy,
                         const std::vector<HorizontalScaler>& hpas);

}  // namespace tailor::actuator
