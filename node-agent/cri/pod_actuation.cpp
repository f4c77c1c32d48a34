#include "node-agent/cri/pod_actuation.h"

#include <stdexcept>

#include "node-agent/cri/container_update.h"

namespace tailor::node::cri {
namespace {

void merge(CgroupValues& into, const CgroupValues& step) {
  if (step.cpu_shares) into.cpu_shares = step.cpu_shares;
  if (step.cpu_quota_us) into.cpu_quota_us = step.cpu_quota_us;
  if (step.cpu_period_us) into.cpu_period_us = step.cpu_period_us;
  if (step.memory_limit_bytes) into.memory_limit_bytes = step.memory_limit_bytes;
}

void check_target(const PodResize& resize, const PodActuationTarget& target) {
  if (!target.cri || !target.pod_cgroup) {
    throw std::invalid_argument("pod actuation target needs a runtime and a pod cgroup");
  }
  const std::size_t n = resize.containers.size();
  if (target.container_ids.size() != n || target.container_cgroups.size() != n) {
    throw std::invalid_argument(
        "pod actuation target has " + std::to_string(target.container_ids.size()) +
        " container ids and " + std::to_string(target.container_cgroups.size()) + " cgroups for " +
        std::to_string(n) + " containers");
  }
}

// UpdatePodSandboxResources after a pod cgroup write: best effort, asked only while supported.
void announce_to_runtime(const PodActuationTarget& target, const CgroupValues& pod,
                         ActuationResult& result) {
  if (!result.sandbox_update_supported) return;
  try {
    if (target.cri->update_pod_sandbox_resources(target.sandbox_id, to_linux_resources(pod)) ==
        SandboxUpdateOutcome::NotSupported) {
      result.sandbox_update_supported = false;
    }
  } catch (const CriError& e) {
    result.sandbox_update_error = e.what();
  }
}

}  // namespace

ActuationResult actuate_pod_resize(const PodResize& resize, const PodActuationTarget& target,
                                   const std::function<void(const ActuationStep&)>& after_step) {
  check_target(resize, target);
  ActuationResult result;
  CgroupValues pod = resize.pod_actuated;
  for (const ActuationStep& step : plan_pod_resize(resize)) {
    try {
      if (step.target == ActuationStep::Target::PodCgroup) {
        target.pod_cgroup->write(step.values);
        merge(pod, step.values);
        announce_to_runtime(target, pod, result);
      } else {
        update_container_resources_checked(*target.cri, target.container_ids[step.container],
                                           to_linux_resources(step.values),
                                           target.container_cgroups[step.container]);
      }
    } catch (const MemoryBelowUsageError& e) {
      result.error = e.what();
      result.memory_below_usage = true;
      return result;
    } catch (const std::exception& e) {
      result.error = e.what();
      return result;
    }
    ++result.steps_applied;
    if (after_step) after_step(step);
  }
  return result;
}

}  // namespace tailor::node::cri
