// Which containers the usage sampler reads: the running containers of the node's pods, as the
// API shows them (status.containerStatuses[].containerID), under the pod cgroup the kubelet (or
// the agent in embedded mode) made for the pod's QoS class. One rule for both actuation modes,
// so the agent samples what a kubelet runs exactly as what it runs itself.
#pragma once

#include <vector>

#include "kube/model/pod.h"
#include "node-agent/cri/pod_cgroup.h"
#include "node-agent/usage/usage_sampler.h"

namespace tailor::node::usage {

// Containers without a containerID or not running are left out (nothing to read yet); so are
// pods being deleted. A containerID without a "runtime://" prefix is taken as the bare id.
std::vector<SampledContainer> sampled_containers(const std::vector<const kube::Pod*>& pods,
                                                 cri::CgroupDriver driver);

}  // namespace tailor::node::usage
