#include "node-agent/cri/resize_restarts.h"

#include <stdexcept>

namespace tailor::node::cri {
namespace {

bool restarts_on(std::span<const kube::ContainerResizePolicy> policy, std::string_view resource) {
  for (const kube::ContainerResizePolicy& p : policy) {
    if (p.resource_name != resource) continue;
    if (p.restart_policy == "RestartContainer") return true;
    if (p.restart_policy.empty() || p.restart_policy == "NotRequired") return false;
    throw std::invalid_argument("resizePolicy " + p.resource_name +
                                ": unsupported restartPolicy \"" + p.restart_policy +
                                "\" (NotRequired, RestartContainer)");
  }
  return false;  // NotRequired is the default
}

}  // namespace

std::string_view to_string(ContainerResizeAction action) {
  switch (action) {
    case ContainerResizeAction::None:
      return "None";
    case ContainerResizeAction::UpdateInPlace:
      return "UpdateInPlace";
    case ContainerResizeAction::Restart:
      return "Restart";
  }
  return "Unknown";
}

ContainerResizeAction container_resize_action(std::span<const kube::ContainerResizePolicy> policy,
                                              const ResourceAmounts& actual,
                                              const ResourceAmounts& allocated) {
  const bool cpu_changed =
      actual.cpu_request_milli.value_or(0) != allocated.cpu_request_milli.value_or(0) ||
      actual.cpu_limit_milli.value_or(0) != allocated.cpu_limit_milli.value_or(0);
  const bool memory_changed =
      actual.memory_limit_bytes.value_or(0) != allocated.memory_limit_bytes.value_or(0);
  const bool restart_cpu = restarts_on(policy, "cpu");
  const bool restart_memory = restarts_on(policy, "memory");
  if ((cpu_changed && restart_cpu) || (memory_changed && restart_memory)) {
    return ContainerResizeAction::Restart;
  }
  if (cpu_changed || memory_changed) return ContainerResizeAction::UpdateInPlace;
  return ContainerResizeAction::None;
}

ContainerResizePlan plan_container_resizes(std::span<const RunningContainerResize> containers) {
  ContainerResizePlan plan;
  for (const RunningContainerResize& c : containers) {
    switch (container_resize_action(c.policy, c.actual, c.allocated)) {
      case ContainerResizeAction::Restart:
        plan.restart.push_back(c.name);
        break;
      case ContainerResizeAction::UpdateInPlace:
        plan.update_in_place.push_back(c.name);
        break;
      case ContainerResizeAction::None:
        break;
    }
  }
  return plan;
}

}  // namespace tailor::node::cri
