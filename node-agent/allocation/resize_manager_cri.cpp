#include "node-agent/allocation/resize_manager_cri.h"

#include <algorithm>

#include "kube/model/qos.h"
#include "kube/observe/log.h"
#include "node-agent/allocation/allocation_state.h"
#include "node-agent/cri/actual_resources.h"
#include "node-agent/cri/pod_actuation.h"
#include "node-agent/cri/resize_restarts.h"

namespace tailor::node::allocation {
namespace {

// The kubelet's label on every container it creates (the embedded pod runtime sets it too).
constexpr const char* kPodUidLabel = "io.kubernetes.pod.uid";

// What the runtime reports, in cgroup terms (0 means "not specified" in the CRI).
cri::CgroupValues values_of(const cri::LinuxResources& r) {
  cri::CgroupValues v;
  if (r.cpu_shares > 0) v.cpu_shares = r.cpu_shares;
  v.cpu_quota_us = r.cpu_quota > 0 ? r.cpu_quota : cri::kUnlimitedQuota;
  v.cpu_period_us = r.cpu_period > 0 ? r.cpu_period : cri::kQuotaPeriodUs;
  if (r.memory_limit_in_bytes > 0) v.memory_limit_bytes = r.memory_limit_in_bytes;
  return v;
}

bool same_amounts(const cri::ResourceAmounts& actual, const cri::ResourceAmounts& allocated) {
  return actual.cpu_request_milli.value_or(0) == allocated.cpu_request_milli.value_or(0) &&
         actual.cpu_limit_milli == allocated.cpu_limit_milli &&
         actual.memory_limit_bytes == allocated.memory_limit_bytes;
}

cri::PodOverhead overhead_of(const kube::Pod& pod) {
  cri::PodOverhead out;
  if (const kube::Quantity* q = kube::find_resource(pod.spec.overhead, kube::kResourceCpu)) {
    out.cpu_milli = q->milli_value();
  }
  if (const kube::Quantity* q = kube::find_resource(pod.spec.overhead, kube::kResourceMemory)) {
    out.memory_bytes = q->value();
  }
  return out;
}

std::string pod_ref(const kube::Pod& pod) {
  return pod.metadata.namespace_ + "/" + pod.metadata.name;
}

std::vector<kube::ContainerResizePolicy> resize_policy_of(const kube::Pod& pod,
                                                          const std::string& name) {
  const kube::Container* container = kube::find_container(pod.spec, name);
  return container ? container->resize_policy : std::vector<kube::ContainerResizePolicy>{};
}

}  // namespace

// What one actuation does: containers to restart (with their allocation), the in-place resize.
struct CriPodResources::Plan {
  std::vector<std::pair<std::string, cri::ResourceAmounts>> restarts;
  cri::PodResize resize;
  std::string pod_path;
  std::string sandbox_id;
  std::vector<std::string> container_ids;  // parallel to resize.containers
};

std::string pod_cgroup_path_of(const kube::Pod& pod, cri::CgroupDriver driver) {
  return cri::cgroup_path(cri::pod_cgroup_name(pod.metadata.uid, kube::pod_qos(pod)), driver);
}

CriPodResources::CriPodResources(cri::RuntimeService& cri, CriPodResourcesOptions options)
    : cri_(cri), options_(std::move(options)) {}

CriPodResources::Running CriPodResources::locate(const kube::Pod& pod) {
  cri::ContainerFilter filter;
  filter.label_selector[kPodUidLabel] = pod.metadata.uid;
  std::map<std::string, cri::ContainerSummary> newest;
  for (cri::ContainerSummary& summary : cri_.list_containers(filter)) {
    auto it = newest.find(summary.name);
    if (it == newest.end() || it->second.attempt < summary.attempt) {
      newest[summary.name] = std::move(summary);
    }
  }
  Running running;
  for (const auto& [name, summary] : newest) {
    running.known.insert(name);
    if (summary.state != cri::ContainerState::Running) continue;
    running.sandbox_id = summary.pod_sandbox_id;
    running.containers[name] = cri_.container_status(summary.id);
  }
  return running;
}

RuntimeReport CriPodResources::report(const kube::Pod&, const AllocatedPod& allocation,
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
      const cri::ResourceAmounts allocated = amounts_of(c.resources);
      const cri::ResourceAmounts actual = cri::actual_resources(*it->second.resources, allocated);
      out.actual[c.name] = requirements_of(actual);
      if (!same_amounts(actual, allocated)) out.matches_allocation = false;
    }
  }
  return out;
}

RuntimeReport CriPodResources::read(const kube::Pod& pod, const AllocatedPod& allocation) {
  return report(pod, allocation, locate(pod));
}

CriPodResources::Plan CriPodResources::plan(const kube::Pod& pod, const AllocatedPod& allocation,
                                            const Running& running) const {
  Plan out;
  out.pod_path = pod_cgroup_path_of(pod, options_.driver);
  out.sandbox_id = running.sandbox_id;
  std::vector<cri::ResourceAmounts> all;
  std::vector<cri::RunningContainerResize> changes;
  for (const auto* list : {&allocation.containers, &allocation.init_containers}) {
    for (const AllocatedContainer& c : *list) {
      const cri::ResourceAmounts amounts = amounts_of(c.resources);
      all.push_back(amounts);
      auto it = running.containers.find(c.name);
      if (it == running.containers.end()) {
        if (running.known.contains(c.name)) continue;  // exited: it restarts with the allocation
        throw std::runtime_error("container \"" + c.name + "\" of pod " + pod_ref(pod) +
                                 " does not exist in the runtime");
      }
      if (!it->second.resources) continue;
      changes.push_back({c.name, resize_policy_of(pod, c.name),
                         cri::actual_resources(*it->second.resources, amounts), amounts});
    }
  }
  const cri::ContainerResizePlan split = cri::plan_container_resizes(changes);
  for (const cri::RunningContainerResize& c : changes) {
    if (std::find(split.restart.begin(), split.restart.end(), c.name) != split.restart.end()) {
      out.restarts.emplace_back(c.name, c.allocated);
      continue;
    }
    const cri::ContainerStatus& status = running.containers.at(c.name);
    out.resize.containers.push_back(
        {c.name, values_of(*status.resources), cri::container_cgroup_values(c.allocated)});
    out.container_ids.push_back(status.id);
  }
  out.resize.pod_desired = cri::pod_cgroup_values(all, overhead_of(pod), kube::pod_qos(pod));
  if (!out.restarts.empty() && !options_.restarter) {
    throw std::runtime_error("container \"" + out.restarts.front().first + "\" of pod " +
                             pod_ref(pod) +
                             " needs a restart (resizePolicy RestartContainer), and this node "
                             "agent has no pod runtime to restart it");
  }
  return out;
}

// Restarts are split around the in-place resize: stopped containers hold no limits while the
// pod cgroup moves, and they start inside the new pod limit.
std::optional<std::string> CriPodResources::apply(const kube::Pod& pod, const Plan& plan) {
  const cri::CgroupFiles pod_cgroup(options_.cgroups, plan.pod_path);
  cri::PodActuationTarget target{&cri_, &pod_cgroup, plan.sandbox_id, plan.container_ids, {}};
  for (const std::string& id : plan.container_ids) {
    target.container_cgroups.emplace_back(
        options_.cgroups, cri::container_cgroup_path(plan.pod_path, id, options_.driver));
  }
  cri::PodResize resize = plan.resize;
  resize.pod_actuated = pod_cgroup.read();
  for (const auto& [name, amounts] : plan.restarts) options_.restarter->stop_for_restart(pod, name);
  const cri::ActuationResult result = cri::actuate_pod_resize(resize, target);
  if (!result.sandbox_update_supported && sandbox_update_supported_) {
    sandbox_update_supported_ = false;
    kube::log::info(
        "The runtime does not implement UpdatePodSandboxResources; carrying on without it");
  }
  if (result.error) return result.error;
  for (const auto& [name, amounts] : plan.restarts) {
    options_.restarter->start_after_restart(pod, name, amounts);
    kube::log::info("Restarted container for its resize (resizePolicy RestartContainer)",
                    {{"pod", kube::log::kobj(pod.metadata.namespace_, pod.metadata.name)},
                     {"container", name}});
  }
  return std::nullopt;
}

ActuationReport CriPodResources::actuate(const kube::Pod& pod, const AllocatedPod& allocation) {
  ActuationReport out;
  const Running running = locate(pod);
  if (running.containers.empty()) return out;  // not started yet: nothing to resize
  try {
    out.error = apply(pod, plan(pod, allocation, running));
  } catch (const std::exception& e) {
    out.error = e.what();
  }
  out.runtime = report(pod, allocation, locate(pod));
  if (out.error) out.runtime.matches_allocation = false;
  return out;
}

}  // namespace tailor::node::allocation
