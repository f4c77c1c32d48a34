// Fakes and pod builders shared by the resize manager's unit tests: a status writer that
// applies patches as the API server would, recorded events, a checkpoint that can fail.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "node-agent/allocation/resize_manager.h"

namespace tailor::node::allocation::testing {

struct Resources {
  std::string cpu_request, cpu_limit, memory_request, memory_limit;
};

inline kube::Container container(const std::string& name, const Resources& r) {
  kube::Container c;
  c.name = name;
  c.image = "busybox";
  auto set = [](kube::ResourceList& list, std::string_view resource, const std::string& value) {
    if (!value.empty()) list.insert_or_assign(resource, kube::Quantity::parse(value));
  };
  set(c.resources.requests, kube::kResourceCpu, r.cpu_request);
  set(c.resources.limits, kube::kResourceCpu, r.cpu_limit);
  set(c.resources.requests, kube::kResourceMemory, r.memory_request);
  set(c.resources.limits, kube::kResourceMemory, r.memory_limit);
  return c;
}

inline kube::Pod make_pod(const std::string& name, std::vector<kube::Container> containers,
                          int priority = 0) {
  kube::Pod pod;
  pod.metadata.name = name;
  pod.metadata.namespace_ = "default";
  pod.metadata.uid = "uid-" + name;
  pod.metadata.generation = 1;
  pod.metadata.resource_version = "1";
  pod.metadata.creation_timestamp = "2026-01-01T00:00:00Z";
  pod.spec.priority = priority;
  pod.spec.containers = std::move(containers);
  for (const kube::Container& c : pod.spec.containers) {
    kube::ContainerStatus status;
    status.name = c.name;
    pod.status.container_statuses.push_back(status);
  }
  pod.status.phase = "Running";
  return pod;
}

// A resize as the API server records it: new resources, generation + 1.
inline kube::Pod resized(kube::Pod pod, const std::string& container_name, const Resources& r) {
  for (kube::Container& c : pod.spec.containers) {
    if (c.name == container_name) c.resources = container(c.name, r).resources;
  }
  ++pod.metadata.generation;
  return pod;
}

// Applies patches the way the API server would, to the pods it holds.
class FakeStatus : public PodStatusWriter {
 public:
  void update(const kube::Pod& cached, const Change& change) override {
    kube::Pod& pod = pods.try_emplace(cached.metadata.uid, cached).first->second;
    apply(pod, change(pod));
    ++writes;
  }
  void reject(const kube::Pod& pod, const std::string& reason,
              const std::string& message) override {
    rejected[pod.metadata.uid] = reason + ": " + message;
  }
  static void apply(kube::Pod& pod, const kube::PodStatusPatch& patch) {
    auto& conditions = pod.status.conditions;
    for (const std::string& type : patch.remove_conditions) {
      std::erase_if(conditions, [&](const kube::PodCondition& c) { return c.type == type; });
    }
    for (const kube::PodCondition& c : patch.set_conditions) {
      std::erase_if(conditions, [&](const kube::PodCondition& o) { return o.type == c.type; });
      conditions.push_back(c);
    }
    for (const kube::ContainerResourcesStatus& c : patch.containers) {
      for (kube::ContainerStatus& s : pod.status.container_statuses) {
        if (s.name != c.name) continue;
        if (c.allocated_resources) s.allocated_resources = *c.allocated_resources;
        if (c.resources) s.resources = c.resources;
      }
    }
    if (patch.observed_generation) pod.status.observed_generation = *patch.observed_generation;
  }
  const kube::PodCondition* condition(const std::string& uid, std::string_view type) {
    return kube::find_condition(pods.at(uid).status, type);
  }
  std::map<std::string, kube::Pod> pods;
  std::map<std::string, std::string> rejected;
  int writes = 0;
};

class FakeEvents : public ResizeEventSink {
 public:
  void event(const kube::Pod& pod, const std::string& type, const std::string& reason,
             const std::string& message) override {
    recorded.push_back(pod.metadata.name + " " + type + " " + reason + ": " + message);
    reasons.push_back(reason);
  }
  std::vector<std::string> recorded, reasons;
};

class FakeCheckpoint : public AllocationCheckpoint {
 public:
  void save(const Checkpoint& checkpoint) override {
    if (fail) throw CheckpointError(CheckpointErrorKind::Io, "disk full");
    saved = checkpoint;
    ++saves;
  }
  Checkpoint saved;
  bool fail = false;
  int saves = 0;
};

}  // namespace tailor::node::allocation::testing
