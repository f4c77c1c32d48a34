// A pod's total requests and limits as the scheduler, kubelet admission and quota count them
// (k8s.io/component-helpers/resource PodRequests / PodLimits):
//   Σ regular + sidecar containers, max'ed with each non-sidecar init container counted together
//   with the sidecars declared before it; pod-level resources (spec.resources) replace the
//   aggregate for the resources they name; plus spec.overhead (for limits: only where a limit
//   is set).
#pragma once

#include "kube/model/pod.h"

namespace tailor::kube {

struct PodResourcesOptions {
  bool exclude_overhead = false;
  bool skip_pod_level_resources = false;
  // Count per container max(desired, allocated, actual) as the scheduler does during a resize;
  // desired is left out while the resize is Infeasible.
  bool use_status_resources = false;
};

ResourceList pod_requests(const Pod& pod, const PodResourcesOptions& options = {});
ResourceList pod_limits(const Pod& pod, const PodResourcesOptions& options = {});

// PodResizePending with reason Infeasible.
bool is_resize_infeasible(const PodStatus& status);

}  // namespace tailor::kube
