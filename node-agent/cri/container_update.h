// UpdateContainerResources with the node's memory safety rule: a container's memory limit is
// never lowered to or below what the container already uses (read from its cgroup first), as
// Kubernetes 1.34+ does; the runtime would otherwise reclaim hard or OOM-kill the container.
#pragma once

#include <string>

#include "node-agent/cri/cri_client.h"
#include "node-agent/cri/pod_cgroup.h"

namespace tailor::node::cri {

// Throws MemoryBelowUsageError ("container <name>: memory limit (N) below current usage (M)")
// without calling the runtime when the new memory limit is a decrease that usage does not allow;
// CriError when the runtime fails.
void update_container_resources_checked(RuntimeService& cri, const std::string& container_id,
                                        const LinuxResources& resources,
                                        const CgroupFiles& container_cgroup);

}  // namespace tailor::node::cri
