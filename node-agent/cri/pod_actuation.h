// Executes an actuation plan: pod cgroup steps are written by the agent (then announced to the
// runtime with UpdatePodSandboxResources, best effort), container steps go through the CRI with
// the memory-below-usage check. Stops at the first failing step, so the caller retries later
// from what was actually applied; the invariant Σ container limits ≤ pod limit holds wherever it
// stops.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "node-agent/cri/actuation_plan.h"
#include "node-agent/cri/cri_client.h"
#include "node-agent/cri/pod_cgroup.h"

namespace tailor::node::cri {

struct PodActuationTarget {
  RuntimeService* cri = nullptr;
  const CgroupFiles* pod_cgroup = nullptr;
  std::string sandbox_id;
  // Parallel to PodResize::containers.
  std::vector<std::string> container_ids;
  std::vector<CgroupFiles> container_cgroups;
};

struct ActuationResult {
  std::size_t steps_applied = 0;
  std::optional<std::string> error;  // why the next step failed
  bool memory_below_usage = false;   // the failure was the memory safety check
  // False once the runtime answered UpdatePodSandboxResources with UNIMPLEMENTED.
  bool sandbox_update_supported = true;
  // The last UpdatePodSandboxResources failure; best effort, so it never stops the resize.
  std::optional<std::string> sandbox_update_error;
};

// `after_step` (optional) runs after each applied step, e.g. to record progress or check state.
ActuationResult actuate_pod_resize(
    const PodResize& resize, const PodActuationTarget& target,
    const std::function<void(const ActuationStep&)>& after_step = {});

}  // namespace tailor::node::cri
