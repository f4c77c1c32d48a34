// The part of resizePolicy RestartContainer that needs whoever starts containers (the embedded
// pod runtime here, the kubelet on real nodes): a restart is split in two halves, so that the pod
// cgroup is resized between them, as the kubelet does (kill, resize the pod, start). The
// stopped container then holds no limits while the pod limit moves, and it starts with the new
// resources inside the new pod limit.
#pragma once

#include <string>

#include "kube/model/pod.h"
#include "node-agent/cri/cgroup_values.h"

namespace tailor::node::cri {

class ContainerRestarter {
 public:
  virtual ~ContainerRestarter() = default;
  // Stops the running container `name` of `pod` (its grace period applies). Throws on failure.
  virtual void stop_for_restart(const kube::Pod& pod, const std::string& name) = 0;
  // Starts the next attempt of `name` with `allocated` (restart count + 1). Throws on failure.
  virtual void start_after_restart(const kube::Pod& pod, const std::string& name,
                                   const ResourceAmounts& allocated) = 0;
};

}  // namespace tailor::node::cri
