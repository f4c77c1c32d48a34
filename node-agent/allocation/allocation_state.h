// Pure helpers over a pod and what the node allocated to it: the allocation a spec asks for,
// the pod as allocated (its spec with the allocated container resources), whether a resize is
// requested, what it changes, and the amounts cgroups are computed from.
#pragma once

#include <string>
#include <vector>

#include "kube/model/pod.h"
#include "node-agent/allocation/checkpoint.h"
#include "node-agent/cri/cgroup_values.h"

namespace tailor::node::allocation {

// The cpu and memory requests and limits the spec asks for (regular and sidecar containers).
AllocatedPod desired_allocation(const kube::Pod& pod);
// Same container resources (cpu and memory), by name.
bool same_resources(const AllocatedPod& a, const AllocatedPod& b);
bool resize_requested(const kube::Pod& pod, const AllocatedPod& allocation);

// The pod with its containers' cpu and memory set to the allocation (others as in the spec).
kube::Pod allocated_pod(const kube::Pod& pod, const AllocatedPod& allocation);
// Σ allocated requests of the pod (overhead and init containers as the scheduler counts them).
kube::ResourceList allocated_requests(const kube::Pod& pod, const AllocatedPod& allocation);

// True when some cpu or memory request of the desired allocation is above the allocated one, or
// new; a resize that does not increase requests cannot make the node fuller.
bool increases_requests(const AllocatedPod& from, const AllocatedPod& to);

struct ResourceChange {
  std::string resource;     // "cpu" | "memory"
  std::string requirement;  // "requests" | "limits"
  std::string operation;    // "add" | "remove" | "increase" | "decrease"
  bool operator==(const ResourceChange&) const = default;
};
// One entry per container and changed value.
std::vector<ResourceChange> resource_changes(const AllocatedPod& from, const AllocatedPod& to);

// Amounts for the cgroup arithmetic (requests default to limits as the API server does).
cri::ResourceAmounts amounts_of(const kube::ResourceRequirements& resources);
// Back to a ResourceRequirements (cpu in milli, memory in bytes) for the status.
kube::ResourceRequirements requirements_of(const cri::ResourceAmounts& amounts);
// Only the cpu and memory entries.
kube::ResourceRequirements cpu_and_memory(const kube::ResourceRequirements& resources);

const AllocatedContainer* find_allocation(const AllocatedPod& allocation,
                                          const std::string& container);

}  // namespace tailor::node::allocation
