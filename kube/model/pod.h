// Pod (core/v1): the subset of spec and status Tailor reads and writes. Field names follow the
// API; strings keep open enums (phase, condition types, reasons) as sent.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kube/model/meta.h"
#include "kube/model/resources.h"

namespace tailor::kube {

struct ContainerResizePolicy {
  std::string resource_name{};   // "cpu" | "memory"
  std::string restart_policy{};  // "NotRequired" | "RestartContainer"
};

struct Container {
  std::string name{};
  std::string image{};
  ResourceRequirements resources{};
  std::vector<ContainerResizePolicy> resize_policy{};
  // Only on init containers: "Always" makes it a restartable (sidecar) init container.
  std::string restart_policy{};
};

// An init container with restartPolicy Always runs for the pod's whole life (a sidecar).
inline bool is_sidecar(const Container& init_container) {
  return init_container.restart_policy == "Always";
}

struct PodSpec {
  std::string node_name{};
  std::vector<Container> containers{};
  std::vector<Container> init_containers{};
  std::optional<std::int32_t> priority{};
  std::string priority_class_name{};
  ResourceList overhead{};
  std::string restart_policy{};  // "Always" | "OnFailure" | "Never"
  // Pod-level resources (spec.resources, PodLevelResources); nullopt when absent.
  std::optional<ResourceRequirements> resources{};
  std::string os_name{};  // spec.os.name
  std::string scheduler_name{};
};

struct ContainerStateWaiting {
  std::string reason{};
  std::string message{};
};

struct ContainerStateRunning {
  std::string started_at{};
};

struct ContainerStateTerminated {
  std::int32_t exit_code = 0;
  std::int32_t signal = 0;
  std::string reason{};  // e.g. "OOMKilled", "Error", "Completed"
  std::string message{};
  std::string started_at{};
  std::string finished_at{};
  std::string container_id{};
};

// At most one member is set, as in the API.
struct ContainerState {
  std::optional<ContainerStateWaiting> waiting{};
  std::optional<ContainerStateRunning> running{};
  std::optional<ContainerStateTerminated> terminated{};
};

struct ContainerStatus {
  std::string name{};
  std::string container_id{};
  std::string image{};
  std::string image_id{};
  bool ready = false;
  std::optional<bool> started{};
  std::int32_t restart_count = 0;
  ContainerState state{};
  ContainerState last_state{};
  ResourceList allocated_resources{};  // allocated: what the node accepted
  // actual: what the runtime reports; nullopt when the node does not report it.
  std::optional<ResourceRequirements> resources{};
};

inline constexpr std::string_view kPodResizePending = "PodResizePending";
inline constexpr std::string_view kPodResizeInProgress = "PodResizeInProgress";

struct PodCondition {
  std::string type{};
  std::string status{};  // "True" | "False" | "Unknown"
  std::string reason{};
  std::string message{};
  std::string last_transition_time{};
  std::string last_probe_time{};
  std::int64_t observed_generation = 0;  // 0: unset
  bool operator==(const PodCondition&) const = default;
};

struct PodStatus {
  std::string phase{};
  std::string reason{};
  std::string message{};
  std::vector<PodCondition> conditions{};
  std::vector<ContainerStatus> container_statuses{};
  std::vector<ContainerStatus> init_container_statuses{};
  std::string qos_class{};
  std::string resize{};  // legacy (< 1.33) status.resize
  std::int64_t observed_generation = 0;
  std::string host_ip{};
  std::string pod_ip{};
  std::string start_time{};
};

struct Pod {
  ObjectMeta metadata{};
  PodSpec spec{};
  PodStatus status{};
};

// Lookups by name; nullptr when absent.
const Container* find_container(const PodSpec& spec, std::string_view name);
const ContainerStatus* find_container_status(const PodStatus& status, std::string_view name);
const PodCondition* find_condition(const PodStatus& status, std::string_view type);

}  // namespace tailor::kube
