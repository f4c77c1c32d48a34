// Node (core/v1): capacity, allocatable, conditions, schedulability, version info.
#pragma once

#include <string>
#include <vector>

#include "kube/model/meta.h"
#include "kube/model/resources.h"

namespace tailor::kube {

struct NodeCondition {
  std::string type{};  // "Ready", "MemoryPressure", ...
  std::string status{};
  std::string reason{};
  std::string message{};
  std::string last_heartbeat_time{};
  std::string last_transition_time{};
};

struct NodeSystemInfo {
  std::string kubelet_version{};
  std::string container_runtime_version{};
  std::string operating_system{};
  std::string architecture{};
};

struct NodeSpec {
  bool unschedulable = false;
  std::string provider_id{};
};

struct NodeStatus {
  ResourceList capacity{};
  ResourceList allocatable{};
  std::vector<NodeCondition> conditions{};
  NodeSystemInfo node_info{};
};

struct Node {
  ObjectMeta metadata{};
  NodeSpec spec{};
  NodeStatus status{};
};

}  // namespace tailor::kube
