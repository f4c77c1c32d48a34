// The CRI specs the embedded pod runtime sends, built as the kubelet builds them (pure): the
// sandbox (kubelet labels, network namespace and hostname, cgroup parent), the containers (attempt,
// log path, labels that let an agent restart find them again, resources from the allocation, uid
// and gid from the securityContext), and the pod cgroup's place and values.
#pragma once

#include <map>
#include <string>

#include "node-agent/cri/pod_cgroup.h"
#include "node-agent/runtime/pod_runtime.h"

namespace tailor::node::runtime {

inline constexpr const char* kLabelPodName = "io.kubernetes.pod.name";
inline constexpr const char* kLabelPodNamespace = "io.kubernetes.pod.namespace";
inline constexpr const char* kLabelPodUid = "io.kubernetes.pod.uid";
inline constexpr const char* kLabelContainerName = "io.kubernetes.container.name";

// The pod cgroup below each hierarchy (e.g. /kubepods/burstable/pod<uid>), and the cgroup parent
// the runtime is given: the same path with cgroupfs, the pod's slice name with systemd.
std::string pod_cgroup_path(const kube::Pod& pod, cri::CgroupDriver driver);
std::string sandbox_cgroup_parent(const kube::Pod& pod, cri::CgroupDriver driver);

// A container's amounts from its spec (requests default to limits, as the API does); used when
// the allocation does not name the container.
// The run spec of the pod's container of that name, or nullptr.
const ContainerRunSpec* run_spec_of(const PodRunSpec& run, const std::string& name);

cri::ResourceAmounts desired_amounts(const kube::Container& container);
// The allocation's amounts for `name`, else desired_amounts.
cri::ResourceAmounts container_amounts(const kube::Container& container,
                                       const PodAllocation& allocated);
// Pod-level cgroup values (ResourceConfigForPod) for the containers' amounts and the overhead.
cri::CgroupValues pod_cgroup_values_for(const kube::Pod& pod, const PodAllocation& allocated);

// The identity container `name` runs with: its securityContext over the pod's.
SecurityIdentity container_identity(const RuntimePod& pod, const std::string& name);

// The sandbox's network namespace: the node's for hostNetwork pods, else one of the pod's own
// (the runtime's CNI plugins give it an interface and an IP).
cri::NamespaceMode sandbox_network_mode(const PodRunSpec& run);
// The kubelet's pod hostname: the pod's name, cut to 63 characters without a trailing '-' or
// '.'. Empty for hostNetwork pods, which keep the node's UTS namespace (runc refuses a hostname
// there).
std::string sandbox_hostname(const RuntimePod& pod);

cri::PodSandboxSpec sandbox_spec(const RuntimePod& pod, const PodRuntimeOptions& options);
// The sandbox's DNS config (dns_config: the pod's resolv.conf) and the warnings forming it gave.
PodDns sandbox_dns(const RuntimePod& pod, const PodRuntimeOptions& options);
// `image_id`: the runtime's id of the locally resolved image; `volume_paths`: where the node made
// the pod's volumes, by name; `pod_ip`: the IP the pod's sandbox got (status.podIP). Throws
// ContainerConfigError (container_env.h) when the environment or the mounts cannot be made.
cri::ContainerSpec container_spec(const RuntimePod& pod, const kube::Container& container,
                                  std::uint32_t attempt, const std::string& image_id,
                                  const cri::ResourceAmounts& amounts,
                                  const PodRuntimeOptions& options = {},
                                  const std::map<std::string, std::string>& volume_paths = {},
                                  const std::string& pod_ip = {});

}  // namespace tailor::node::runtime
