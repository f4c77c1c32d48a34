// resizePolicy, as the kubelet applies it (computePodResizeAction): a running container whose
// allocation differs from what the runtime applied is updated in place, unless a resource that
// changed has restartPolicy RestartContainer, which then restarts the whole container (it wins
// over NotRequired on another changed resource). A policy on an unchanged resource restarts
// nothing. Compared are what cgroups hold: CPU request (shares), CPU limit (quota) and memory
// limit; a memory request alone never reaches a cgroup, so it neither updates nor restarts.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "kube/model/pod.h"
#include "node-agent/cri/cgroup_values.h"

namespace tailor::node::cri {

enum class ContainerResizeAction { None, UpdateInPlace, Restart };

std::string_view to_string(ContainerResizeAction action);

// `actual` as read back from the runtime (actual_resources), `allocated` as checkpointed.
// Throws std::invalid_argument for a restartPolicy other than NotRequired / RestartContainer.
ContainerResizeAction container_resize_action(std::span<const kube::ContainerResizePolicy> policy,
                                              const ResourceAmounts& actual,
                                              const ResourceAmounts& allocated);

struct RunningContainerResize {
  std::string name;
  std::vector<kube::ContainerResizePolicy> policy;
  ResourceAmounts actual;
  ResourceAmounts allocated;
};

struct ContainerResizePlan {
  std::vector<std::string> update_in_place;  // names, in the given order
  std::vector<std::string> restart;
};

// Splits a pod's running containers by what their resize needs.
ContainerResizePlan plan_container_resizes(std::span<const RunningContainerResize> containers);

}  // namespace tailor::node::cri
