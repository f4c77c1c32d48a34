// The allocation manager's runtime edge on a real node: finds a pod's running containers through
// the CRI (by the kubelet's pod-uid label), computes the pod and container cgroup values of the
// allocation as the kubelet does, applies them with the safe-order plan (pod_actuation: pod
// cgroup raised first / lowered last, container decreases before increases, memory never below
// usage), and reads back what the runtime applied (ContainerStatus → actual resources).
#pragma once

#include <map>
#include <string>

#include "node-agent/cri_client.h"
#include "node-agent/pod_cgroup.h"
#include "node-agent/resize_manager.h"

namespace tailor::kube::node {

struct CriPodResourcesOptions {
  CgroupLayout cgroups{};
  CgroupDriver driver = CgroupDriver::Cgroupfs;
};

class CriPodResources : public PodResourcesRuntime {
 public:
  CriPodResources(RuntimeService& cri, CriPodResourcesOptions options);
  RuntimeReport read(const Pod& pod, const AllocatedPod& allocation) override;
  ActuationReport actuate(const Pod& pod, const AllocatedPod& allocation) override;

 private:
  struct Running {
    std::string sandbox_id;
    std::map<std::string, ContainerStatus> containers;  // by container name, running only
  };
  Running locate(const Pod& pod);
  RuntimeReport report(const Pod& pod, const AllocatedPod& allocation, const Running& running);

  RuntimeService& cri_;
  CriPodResourcesOptions options_;
  bool sandbox_update_supported_ = true;
};

// The cgroup path of a pod below each hierarchy, as the kubelet names it.
std::string pod_cgroup_path_of(const Pod& pod, CgroupDriver driver);

}  // namespace tailor::kube::node
