#include "node-agent/allocation/checkpoint_rebuild.h"

#include "kube/model/pod_resources.h"
#include "node-agent/allocation/allocation_state.h"
#include "node-agent/cri/actual_resources.h"

namespace tailor::node::allocation {
namespace {

bool is_terminal(const kube::Pod& pod) {
  return pod.status.phase == "Succeeded" || pod.status.phase == "Failed";
}

// Each entry of `shape` takes the value `from` has for it, if any.
void overlay(kube::ResourceList& shape, const kube::ResourceList& from) {
  for (auto& [name, quantity] : shape) {
    if (const kube::Quantity* q = kube::find_resource(from, name)) quantity = *q;
  }
}

// What the status says was allocated (requests) and applied (limits), over the spec's values.
kube::ResourceRequirements status_view(const kube::ResourceRequirements& spec,
                                       const kube::ContainerStatus* status) {
  kube::ResourceRequirements out = spec;
  if (status == nullptr) return out;
  if (status->resources) {
    overlay(out.requests, status->resources->requests);
    overlay(out.limits, status->resources->limits);
  }
  overlay(out.requests, status->allocated_resources);  // the allocation itself: preferred
  return out;
}

// A memory request taken from the status of a resize that had not reached the runtime may be
// above the limit that runs; an allocation never has request > limit.
void cap_memory_request(kube::ResourceRequirements& resources) {
  kube::Quantity* request = nullptr;
  if (auto it = resources.requests.find(kube::kResourceMemory); it != resources.requests.end()) {
    request = &it->second;
  }
  const kube::Quantity* limit = kube::find_resource(resources.limits, kube::kResourceMemory);
  if (request != nullptr && limit != nullptr && *request > *limit) *request = *limit;
}

bool status_shows_allocation(const kube::ContainerStatus* status) {
  return status != nullptr && (!status->allocated_resources.empty() || status->resources);
}

void rebuild_container(const kube::Pod& pod, const PodRuntimeView* runtime,
                       AllocatedContainer& container, RebuiltPod& out) {
  const kube::ContainerStatus* status = kube::find_container_status(pod.status, container.name);
  const kube::ResourceRequirements prior = status_view(container.resources, status);
  out.sources[container.name] =
      status_shows_allocation(status) ? RebuildSource::Status : RebuildSource::Spec;
  container.resources = prior;
  if (runtime == nullptr) return;
  const auto running = runtime->find(container.name);
  if (running == runtime->end() || !running->second) return;
  // Read back as the status reports it; the memory request (never in a cgroup) stays the prior's.
  const kube::ResourceRequirements actual =
      requirements_of(cri::actual_resources(*running->second, amounts_of(prior)));
  overlay(container.resources.requests, actual.requests);
  overlay(container.resources.limits, actual.limits);
  cap_memory_request(container.resources);
  out.sources[container.name] = RebuildSource::Runtime;
}

}  // namespace

std::string_view to_string(RebuildSource source) {
  switch (source) {
    case RebuildSource::Runtime:
      return "runtime";
    case RebuildSource::Status:
      return "status";
    case RebuildSource::Spec:
      return "spec";
  }
  return "spec";
}

bool was_admitted(const kube::Pod& pod, const PodRuntimeView* runtime) {
  if (runtime != nullptr && !runtime->empty()) return true;
  for (const auto* list : {&pod.status.container_statuses, &pod.status.init_container_statuses}) {
    for (const kube::ContainerStatus& s : *list) {
      if (status_shows_allocation(&s)) return true;
    }
  }
  return false;
}

RebuiltPod rebuild_allocation(const kube::Pod& pod, const PodRuntimeView* runtime) {
  RebuiltPod out;
  out.allocation = desired_allocation(pod);  // the containers and which values each has
  out.allocation.generation = 0;             // unknown: no admission is on record
  for (auto* list : {&out.allocation.containers, &out.allocation.init_containers}) {
    for (AllocatedContainer& container : *list) rebuild_container(pod, runtime, container, out);
  }
  return out;
}

RebuildResult rebuild_allocations(const Checkpoint& known, const std::vector<kube::Pod>& pods,
                                  const NodeRuntimeView& runtime) {
  RebuildResult out;
  out.checkpoint = known;
  for (const kube::Pod& pod : pods) {
    const std::string& uid = pod.metadata.uid;
    if (is_terminal(pod) || known.pods.contains(uid)) continue;
    const auto it = runtime.find(uid);
    const PodRuntimeView* view = it == runtime.end() ? nullptr : &it->second;
    if (!was_admitted(pod, view)) continue;  // never ran here: admitted as new
    RebuiltPod rebuilt = rebuild_allocation(pod, view);
    out.checkpoint.pods[uid] = rebuilt.allocation;
    out.rebuilt.push_back(std::move(rebuilt));
  }
  return out;
}

std::string describe_sources(const RebuiltPod& pod) {
  std::string out;
  for (const auto& [name, source] : pod.sources) {
    if (!out.empty()) out += ", ";
    out += name + "=" + std::string(to_string(source));
  }
  return out;
}

}  // namespace tailor::node::allocation
