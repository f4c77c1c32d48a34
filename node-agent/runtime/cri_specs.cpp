#include "node-agent/runtime/cri_specs.h"

#include <algorithm>

#include "kube/model/qos.h"
#include "node-agent/runtime/container_env.h"

namespace tailor::node::runtime {
namespace {

std::optional<std::int64_t> amount(const kube::ResourceList& list, std::string_view name,
                                   bool milli) {
  const auto it = list.find(name);
  if (it == list.end()) return std::nullopt;
  return milli ? it->second.milli_value() : it->second.value();
}

std::int64_t overhead_of(const kube::Pod& pod, std::string_view name, bool milli) {
  return amount(pod.spec.overhead, name, milli).value_or(0);
}

std::map<std::string, std::string> pod_labels(const kube::Pod& pod) {
  return {{kLabelPodName, pod.metadata.name},
          {kLabelPodNamespace, pod.metadata.namespace_},
          {kLabelPodUid, pod.metadata.uid}};
}

}  // namespace

const ContainerRunSpec* run_spec_of(const PodRunSpec& run, const std::string& name) {
  const auto it = std::find_if(run.containers.begin(), run.containers.end(),
                               [&](const ContainerRunSpec& c) { return c.name == name; });
  return it == run.containers.end() ? nullptr : &*it;
}

std::string pod_cgroup_path(const kube::Pod& pod, cri::CgroupDriver driver) {
  return cri::cgroup_path(cri::pod_cgroup_name(pod.metadata.uid, kube::pod_qos(pod)), driver);
}

std::string sandbox_cgroup_parent(const kube::Pod& pod, cri::CgroupDriver driver) {
  const std::string path = pod_cgroup_path(pod, driver);
  if (driver == cri::CgroupDriver::Cgroupfs) return path;
  return path.substr(path.rfind('/') + 1);
}

cri::ResourceAmounts desired_amounts(const kube::Container& container) {
  const auto& r = container.resources;
  cri::ResourceAmounts out;
  out.cpu_limit_milli = amount(r.limits, kube::kResourceCpu, true);
  out.memory_limit_bytes = amount(r.limits, kube::kResourceMemory, false);
  out.cpu_request_milli = amount(r.requests, kube::kResourceCpu, true);
  out.memory_request_bytes = amount(r.requests, kube::kResourceMemory, false);
  if (!out.cpu_request_milli) out.cpu_request_milli = out.cpu_limit_milli;
  if (!out.memory_request_bytes) out.memory_request_bytes = out.memory_limit_bytes;
  return out;
}

cri::ResourceAmounts container_amounts(const kube::Container& container,
                                       const PodAllocation& allocated) {
  const auto it = allocated.find(container.name);
  return it != allocated.end() ? it->second : desired_amounts(container);
}

cri::CgroupValues pod_cgroup_values_for(const kube::Pod& pod, const PodAllocation& allocated) {
  std::vector<cri::ResourceAmounts> amounts;
  for (const auto& container : pod.spec.containers) {
    amounts.push_back(container_amounts(container, allocated));
  }
  const cri::PodOverhead overhead{.cpu_milli = overhead_of(pod, kube::kResourceCpu, true),
                                  .memory_bytes = overhead_of(pod, kube::kResourceMemory, false)};
  return cri::pod_cgroup_values(amounts, overhead, kube::pod_qos(pod));
}

SecurityIdentity container_identity(const RuntimePod& pod, const std::string& name) {
  const ContainerRunSpec* run = run_spec_of(pod.run, name);
  return effective_identity(pod.run.security, run ? run->security : SecurityIdentity{});
}

cri::NamespaceMode sandbox_network_mode(const PodRunSpec& run) {
  return run.host_network ? cri::NamespaceMode::Node : cri::NamespaceMode::Pod;
}

std::string sandbox_hostname(const RuntimePod& pod) {
  if (pod.run.host_network) return {};
  std::string name = pod.pod.metadata.name.substr(0, 63);
  while (!name.empty() && (name.back() == '-' || name.back() == '.')) name.pop_back();
  return name;
}

cri::PodSandboxSpec sandbox_spec(const RuntimePod& runtime_pod, const PodRuntimeOptions& options) {
  const kube::Pod& pod = runtime_pod.pod;
  cri::PodSandboxSpec out;
  out.name = pod.metadata.name;
  out.uid = pod.metadata.uid;
  out.ns = pod.metadata.namespace_;
  out.hostname = sandbox_hostname(runtime_pod);
  if (!options.log_root.empty()) {
    out.log_directory = options.log_root + "/" + pod.metadata.namespace_ + "_" + pod.metadata.name +
                        "_" + pod.metadata.uid;
  }
  out.cgroup_parent = sandbox_cgroup_parent(pod, options.driver);
  out.network = sandbox_network_mode(runtime_pod.run);
  out.labels = pod_labels(pod);
  out.dns = sandbox_dns(runtime_pod, options).config;
  return out;
}

PodDns sandbox_dns(const RuntimePod& pod, const PodRuntimeOptions& options) {
  return pod_dns({.ns = pod.pod.metadata.namespace_,
                  .name = pod.pod.metadata.name,
                  .uid = pod.pod.metadata.uid,
                  .dns_policy = pod.run.dns_policy,
                  .host_network = pod.run.host_network,
                  .dns_config = pod.run.dns_config},
                 options.dns);
}

cri::ContainerSpec container_spec(const RuntimePod& runtime_pod, const kube::Container& container,
                                  std::uint32_t attempt, const std::string& image_id,
                                  const cri::ResourceAmounts& amounts,
                                  const PodRuntimeOptions& options,
                                  const std::map<std::string, std::string>& volume_paths,
                                  const std::string& pod_ip) {
  cri::ContainerSpec out;
  out.name = container.name;
  out.attempt = attempt;
  out.image = image_id;
  if (const auto* run = run_spec_of(runtime_pod.run, container.name)) {
    out.envs = container_environment(runtime_pod, *run, options, pod_ip);
    out.command = expand_all(run->command, out.envs);
    out.args = expand_all(run->args, out.envs);
    out.mounts = container_mounts(*run, volume_paths);
  }
  out.log_path = container.name + "/" + std::to_string(attempt) + ".log";
  out.labels = pod_labels(runtime_pod.pod);
  out.labels[kLabelContainerName] = container.name;
  out.annotations["io.kubernetes.container.restartCount"] = std::to_string(attempt);
  out.resources = cri::to_linux_resources(cri::container_cgroup_values(amounts));
  const SecurityIdentity identity = container_identity(runtime_pod, container.name);
  out.run_as_user = identity.run_as_user;
  out.run_as_group = identity.run_as_group;
  return out;
}

}  // namespace tailor::node::runtime
