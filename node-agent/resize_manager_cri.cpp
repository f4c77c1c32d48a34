#include "node-agent/resize_manager_cri.h"

#include "controller/kube/model/qos.h"
#include "controller/kube/observe/log.h"
#include "node-agent/actual_resources.h"
#include "node-agent/allocation_state.h"
#include "node-agent/pod_actuation.h"

namespace tailor::kube::node {
namespace {

// The kubelet's label on every container it creates (the embedded pod runtime sets it too).
constexpr const char* kPodUidLabel = "io.kubernetes.pod.uid";

// What the runtime reports, in cgroup terms (0 means "not specified" in the CRI).
CgroupValues values_of(const LinuxResources& r) {
  CgroupValues v;
  if (r.cpu_shares > 0) v.cpu_shares = r.cpu_shares;
  v.cpu_quota_us = r.cpu_quota > 0 ? r.cpu_quota : kUnlimitedQuota;
  v.cpu_period_us = r.cpu_period > 0 ? r.cpu_period : kQuotaPeriodUs;
  if (r.memory_limit_in_bytes > 0) v.memory_limit_bytes = r.memory_limit_in_bytes;
  return v;
}

bool same_amounts(const ResourceAmounts& actual, const ResourceAmounts& allocated) {
  return actual.cpu_request_milli.value_or(0) == allocated.cpu_request_milli.value_or(0) &&
         actual.cpu_limit_milli == allocated.cpu_limit_milli &&
         actual.memory_limit_bytes == allocated.memory_limit_bytes;
}

PodOverhead overhead_of(const Pod& pod) {
  PodOverhead out;
  if (const Quantity* q = find_resource(pod.spec.overhead, kResourceCpu)) {
    out.cpu_milli = q->milli_value();
  }
  if (const Quantity* q = find_resource(pod.spec.overhead, kResourceMemory)) {
    out.memory_bytes = q->value();
  }
  return out;
}

}  // namespace

std::string pod_cgroup_path_of(const Pod& pod, CgroupDriver driver) {
  return cgroup_path(pod_cgroup_name(pod.metadata.uid, pod_qos(pod)), driver);
}

CriPodResources::CriPodResources(RuntimeService& cri, CriPodResourcesOptions options)
    : cri_(cri), options_(std::move(options)) {}

CriPodResources::Running CriPodResources::locate(const Pod& pod) {
  ContainerFilter filter;
  filter.label_selector[kPodUidLabel] = pod.metadata.uid;
  filter.state = ContainerState::Running;
  Running running;
  for (const ContainerSummary& summary : cri_.list_containers(filter)) {
    auto it = running.containers.find(summary.name);
    if (it != running.containers.end() && it->second.attempt > summary.attempt) continue;
    running.sandbox_id = summary.pod_sandbox_id;
    running.containers[summary.name] = cri_.container_status(summary.id);
  }
  return running;
}

RuntimeReport CriPodResources::report(const Pod&, const AllocatedPod& allocation,
                                      const Running& running) {
  RuntimeReport out;
  out.matches_allocation = !running.containers.empty();
  for (const auto* list : {&allocation.containers, &allocation.init_containers}) {
    for (const AllocatedContainer& c : *list) {
      auto it = running.containers.find(c.name);
      if (it == running.containers.end()) continue;  // starts with the allocation
      if (!it->second.resources) {
        out.matches_allocation = false;  // a runtime that does not report what it applied
        continue;
      }
      const ResourceAmounts allocated = amounts_of(c.resources);
      const ResourceAmounts actual = actual_resources(*it->second.resources, allocated);
      out.actual[c.name] = requirements_of(actual);
      if (!same_amounts(actual, allocated)) out.matches_allocation = false;
    }
  }
  return out;
}

RuntimeReport CriPodResources::read(const Pod& pod, const AllocatedPod& allocation) {
  return report(pod, allocation, locate(pod));
}

ActuationReport CriPodResources::actuate(const Pod& pod, const AllocatedPod& allocation) {
  ActuationReport out;
  const Running running = locate(pod);
  if (running.containers.empty()) return out;  // not started yet: nothing to resize

  std::vector<ResourceAmounts> all;
  PodResize resize;
  const std::string pod_path = pod_cgroup_path_of(pod, options_.driver);
  const CgroupFiles pod_cgroup(options_.cgroups, pod_path);
  PodActuationTarget target{&cri_, &pod_cgroup, running.sandbox_id, {}, {}};
  for (const auto* list : {&allocation.containers, &allocation.init_containers}) {
    for (const AllocatedContainer& c : *list) {
      const ResourceAmounts amounts = amounts_of(c.resources);
      all.push_back(amounts);
      auto it = running.containers.find(c.name);
      if (it == running.containers.end() || !it->second.resources) continue;
      resize.containers.push_back(
          {c.name, values_of(*it->second.resources), container_cgroup_values(amounts)});
      target.container_ids.push_back(it->second.id);
      target.container_cgroups.emplace_back(
          options_.cgroups, container_cgroup_path(pod_path, it->second.id, options_.driver));
    }
  }
  try {
    resize.pod_actuated = pod_cgroup.read();
    resize.pod_desired = pod_cgroup_values(all, overhead_of(pod), pod_qos(pod));
    const ActuationResult result = actuate_pod_resize(resize, target);
    if (result.error) out.error = *result.error;
    if (!result.sandbox_update_supported && sandbox_update_supported_) {
      sandbox_update_supported_ = false;
      log::info("The runtime does not implement UpdatePodSandboxResources; carrying on without it");
    }
  } catch (const std::exception& e) {
    out.error = e.what();
  }
  out.runtime = report(pod, allocation, locate(pod));
  if (out.error) out.runtime.matches_allocation = false;
  return out;
}

}  // namespace tailor::kube::node
