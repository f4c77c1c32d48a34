#include "node-agent/runtime/cri_specs.h"

#include <algorithm>

#include "kube/model/qos.h"

namespace tailor::kube::node {
namespace {

std::optional<std::int64_t> amount(const ResourceList& list, std::string_view name, bool milli) {
  const auto it = list.find(name);
  if (it == list.end()) return std::nullopt;
  return milli ? it->second.milli_value() : it->second.value();
}

std::int64_t overhead_of(const Pod& pod, std::string_view name, bool milli) {
  return amount(pod.spec.overhead, name, milli).value_or(0);
}

const ContainerRunSpec* run_spec_of(const PodRunSpec& run, const std::string& name) {
  const auto it = std::find_if(run.containers.begin(), run.containers.end(),
                               [&](const ContainerRunSpec& c) { return c.name == name; });
  return it == run.containers.end() ? nullptr : &*it;
}

std::map<std::string, std::string> pod_labels(const Pod& pod) {
  return {{kLabelPodName, pod.metadata.name},
          {kLabelPodNamespace, pod.metadata.namespace_},
          {kLabelPodUid, pod.metadata.uid}};
}

}  // namespace

std::string pod_cgroup_path(const Pod& pod, CgroupDriver driver) {
  return cgroup_path(pod_cgroup_name(pod.metadata.uid, pod_qos(pod)), driver);
}

std::string sandbox_cgroup_parent(const Pod& pod, CgroupDriver driver) {
  const std::string path = pod_cgroup_path(pod, driver);
  if (driver == CgroupDriver::Cgroupfs) return path;
  return path.substr(path.rfind('/') + 1);
}

ResourceAmounts desired_amounts(const Container& container) {
  const auto& r = container.resources;
  ResourceAmounts out;
  out.cpu_limit_milli = amount(r.limits, kResourceCpu, true);
  out.memory_limit_bytes = amount(r.limits, kResourceMemory, false);
  out.cpu_request_milli = amount(r.requests, kResourceCpu, true);
  out.memory_request_bytes = amount(r.requests, kResourceMemory, false);
  if (!out.cpu_request_milli) out.cpu_request_milli = out.cpu_limit_milli;
  if (!out.memory_request_bytes) out.memory_request_bytes = out.memory_limit_bytes;
  return out;
}

ResourceAmounts container_amounts(const Container& container, const PodAllocation& allocated) {
  const auto it = allocated.find(container.name);
  return it != allocated.end() ? it->second : desired_amounts(container);
}

CgroupValues pod_cgroup_values_for(const Pod& pod, const PodAllocation& allocated) {
  std::vector<ResourceAmounts> amounts;
  for (const auto& container : pod.spec.containers) {
    amounts.push_back(container_amounts(container, allocated));
  }
  const PodOverhead overhead{.cpu_milli = overhead_of(pod, kResourceCpu, true),
                             .memory_bytes = overhead_of(pod, kResourceMemory, false)};
  return pod_cgroup_values(amounts, overhead, pod_qos(pod));
}

PodSandboxSpec sandbox_spec(const RuntimePod& runtime_pod, const PodRuntimeOptions& options) {
  const Pod& pod = runtime_pod.pod;
  PodSandboxSpec out;
  out.name = pod.metadata.name;
  out.uid = pod.metadata.uid;
  out.ns = pod.metadata.namespace_;
  // No hostname: sandboxes share the node's network and UTS namespaces (runc refuses one).
  if (!options.log_root.empty()) {
    out.log_directory = options.log_root + "/" + pod.metadata.namespace_ + "_" + pod.metadata.name +
                        "_" + pod.metadata.uid;
  }
  out.cgroup_parent = sandbox_cgroup_parent(pod, options.driver);
  out.network = NamespaceMode::Node;
  out.labels = pod_labels(pod);
  return out;
}

ContainerSpec container_spec(const RuntimePod& runtime_pod, const Container& container,
                             std::uint32_t attempt, const std::string& image_id,
                             const ResourceAmounts& amounts) {
  ContainerSpec out;
  out.name = container.name;
  out.attempt = attempt;
  out.image = image_id;
  if (const auto* run = run_spec_of(runtime_pod.run, container.name)) {
    out.command = run->command;
    out.args = run->args;
    out.envs = run->env;
  }
  out.log_path = container.name + "/" + std::to_string(attempt) + ".log";
  out.labels = pod_labels(runtime_pod.pod);
  out.labels[kLabelContainerName] = container.name;
  out.annotations["io.kubernetes.container.restartCount"] = std::to_string(attempt);
  out.resources = to_linux_resources(container_cgroup_values(amounts));
  return out;
}

}  // namespace tailor::kube::node
