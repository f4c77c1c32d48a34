// The order in which a pod resize is applied (KEP-1287 and the kubelet 1.33–1.34 code): memory
// fully first, then CPU; for each, raise the pod-level limit first on a net increase (and, for
// CPU, the pod's shares), then update the containers — every decrease before any increase — and
// lower the pod-level shares and limit last. So Σ container limits ≤ pod limit holds after every
// step. Pure: the caller executes the steps and stops at the first failing one.
#pragma once

#include <string>
#include <vector>

#include "node-agent/cri/cgroup_values.h"

namespace tailor::node::cri {

enum class ResizeResource { Memory, Cpu };

struct ContainerResize {
  std::string name;
  CgroupValues actuated;  // what the runtime last accepted
  CgroupValues desired;   // the allocation, as cgroup values
};

struct PodResize {
  CgroupValues pod_actuated;
  CgroupValues pod_desired;
  std::vector<ContainerResize> containers;
};

struct ActuationStep {
  enum class Target { PodCgroup, Container };
  Target target = Target::PodCgroup;
  ResizeResource resource = ResizeResource::Memory;
  std::size_t container = 0;  // index into PodResize::containers, for Target::Container
  // Pod cgroup: only the fields to write are set. Container: the full resources to send — the
  // changed resource's desired values with the other resource's values as actuated so far.
  CgroupValues values;
};

std::vector<ActuationStep> plan_pod_resize(const PodResize& resize);

}  // namespace tailor::node::cri
