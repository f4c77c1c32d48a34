// The allocation manager's runtime edge on a real node: finds a pod's running containers through
// the CRI (by the kubelet's pod-uid label), computes the pod and container cgroup values of the
// allocation as the kubelet does, applies them with the safe-order plan (pod_actuation: pod
// cgroup raised first / lowered last, container decreases before increases, memory never below
// usage), and reads back what the runtime applied (ContainerStatus → actual resources).
// resizePolicy RestartContainer (resize_restarts.h): such containers are stopped first, the pod
// cgroup and the other containers are resized in place, then they start with the new resources
// (restart count + 1), as the kubelet orders it. An allocated container the runtime has never
// heard of (not even exited) while the pod runs is an error naming it, not a silent success.
#pragma once

#include <map>
#include <set>
#include <string>

#include "node-agent/allocation/resize_manager.h"
#include "node-agent/cri/container_restarter.h"
#include "node-agent/cri/cri_client.h"
#include "node-agent/cri/pod_cgroup.h"

namespace tailor::node::allocation {

struct CriPodResourcesOptions {
  cri::CgroupLayout cgroups{};
  cri::CgroupDriver driver = cri::CgroupDriver::Cgroupfs;
  // Restarts containers for resizePolicy RestartContainer (the embedded pod runtime). Without
  // one, a resize that needs a restart fails with an error saying so.
  cri::ContainerRestarter* restarter = nullptr;
};

class CriPodResources : public PodResourcesRuntime {
 public:
  CriPodResources(cri::RuntimeService& cri, CriPodResourcesOptions options);
  RuntimeReport read(const kube::Pod& pod, const AllocatedPod& allocation) override;
  ActuationReport actuate(const kube::Pod& pod, const AllocatedPod& allocation) override;

 private:
  struct Running {
    std::string sandbox_id;
    std::map<std::string, cri::ContainerStatus> containers;  // by container name, running only
    std::set<std::string> known;                             // names with any container, any state
  };
  struct Plan;
  Running locate(const kube::Pod& pod);
  Plan plan(const kube::Pod& pod, const AllocatedPod& allocation, const Running& running) const;
  std::optional<std::string> apply(const kube::Pod& pod, const Plan& plan);
  RuntimeReport report(const kube::Pod& pod, const AllocatedPod& allocation,
                       const Running& running);

  cri::RuntimeService& cri_;
  CriPodResourcesOptions options_;
  bool sandbox_update_supported_ = true;
};

// The cgroup path of a pod below each hierarchy, as the kubelet names it.
std::string pod_cgroup_path_of(const kube::Pod& pod, cri::CgroupDriver driver);

}  // namespace tailor::node::allocation
