#include "node-agent/allocation/allocation_state.h"

#include "kube/model/pod_resources.h"

namespace tailor::node::allocation {
namespace {

kube::ResourceList cpu_and_memory_entries(const kube::ResourceList& list) {
  kube::ResourceList out;
  for (std::string_view name : {kube::kResourceCpu, kube::kResourceMemory}) {
    if (const kube::Quantity* q = kube::find_resource(list, name)) out.insert_or_assign(name, *q);
  }
  return out;
}

std::vector<AllocatedContainer> allocations_of(const std::vector<kube::Container>& containers,
                                               bool sidecars_only) {
  std::vector<AllocatedContainer> out;
  for (const kube::Container& c : containers) {
    if (sidecars_only && !kube::is_sidecar(c)) continue;
    out.push_back({c.name, cpu_and_memory(c.resources)});
  }
  return out;
}

void apply(std::vector<kube::Container>& containers,
           const std::vector<AllocatedContainer>& allocated) {
  for (kube::Container& c : containers) {
    for (const AllocatedContainer& a : allocated) {
      if (a.name != c.name) continue;
      for (kube::ResourceList* list : {&c.resources.requests, &c.resources.limits}) {
        list->erase(kube::kResourceCpu);
        list->erase(kube::kResourceMemory);
      }
      kube::add_resources(c.resources.requests, a.resources.requests);
      kube::add_resources(c.resources.limits, a.resources.limits);
    }
  }
}

std::int64_t amount(std::string_view resource, const kube::Quantity& q) {
  return resource == kube::kResourceCpu ? q.milli_value() : q.value();
}

void list_changes(const kube::ResourceList& from, const kube::ResourceList& to,
                  const std::string& requirement, std::vector<ResourceChange>& out) {
  for (std::string_view resource : {kube::kResourceCpu, kube::kResourceMemory}) {
    const kube::Quantity* a = kube::find_resource(from, resource);
    const kube::Quantity* b = kube::find_resource(to, resource);
    std::string operation;
    if (a == nullptr && b != nullptr) operation = "add";
    if (a != nullptr && b == nullptr) operation = "remove";
    if (a != nullptr && b != nullptr && *a != *b) operation = *b > *a ? "increase" : "decrease";
    if (!operation.empty()) out.push_back({std::string(resource), requirement, operation});
  }
}

const AllocatedContainer* find_in(const std::vector<AllocatedContainer>& list,
                                  const std::string& name) {
  for (const AllocatedContainer& c : list) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

template <class F>
void for_each_pair(const AllocatedPod& from, const AllocatedPod& to, F&& f) {
  static const AllocatedContainer kNone{};
  for (const auto* list : {&to.containers, &to.init_containers}) {
    for (const AllocatedContainer& b : *list) {
      const AllocatedContainer* a = find_allocation(from, b.name);
      f(a != nullptr ? *a : kNone, b);
    }
  }
}

}  // namespace

const AllocatedContainer* find_allocation(const AllocatedPod& allocation,
                                          const std::string& container) {
  if (const auto* c = find_in(allocation.containers, container)) return c;
  return find_in(allocation.init_containers, container);
}

AllocatedPod desired_allocation(const kube::Pod& pod) {
  AllocatedPod out;
  out.uid = pod.metadata.uid;
  out.namespace_ = pod.metadata.namespace_;
  out.name = pod.metadata.name;
  out.generation = pod.metadata.generation;
  out.containers = allocations_of(pod.spec.containers, false);
  out.init_containers = allocations_of(pod.spec.init_containers, true);
  return out;
}

bool same_resources(const AllocatedPod& a, const AllocatedPod& b) {
  return a.containers == b.containers && a.init_containers == b.init_containers;
}

bool resize_requested(const kube::Pod& pod, const AllocatedPod& allocation) {
  return !same_resources(desired_allocation(pod), allocation);
}

kube::Pod allocated_pod(const kube::Pod& pod, const AllocatedPod& allocation) {
  kube::Pod out = pod;
  apply(out.spec.containers, allocation.containers);
  apply(out.spec.init_containers, allocation.init_containers);
  return out;
}

kube::ResourceList allocated_requests(const kube::Pod& pod, const AllocatedPod& allocation) {
  return kube::pod_requests(allocated_pod(pod, allocation));
}

bool increases_requests(const AllocatedPod& from, const AllocatedPod& to) {
  bool increases = false;
  for_each_pair(from, to, [&](const AllocatedContainer& a, const AllocatedContainer& b) {
    for (std::string_view resource : {kube::kResourceCpu, kube::kResourceMemory}) {
      const kube::Quantity* before = kube::find_resource(a.resources.requests, resource);
      const kube::Quantity* after = kube::find_resource(b.resources.requests, resource);
      if (after == nullptr) continue;
      if (before == nullptr || amount(resource, *after) > amount(resource, *before)) {
        increases = true;
      }
    }
  });
  return increases;
}

std::vector<ResourceChange> resource_changes(const AllocatedPod& from, const AllocatedPod& to) {
  std::vector<ResourceChange> out;
  for_each_pair(from, to, [&](const AllocatedContainer& a, const AllocatedContainer& b) {
    list_changes(a.resources.requests, b.resources.requests, "requests", out);
    list_changes(a.resources.limits, b.resources.limits, "limits", out);
  });
  return out;
}

cri::ResourceAmounts amounts_of(const kube::ResourceRequirements& resources) {
  cri::ResourceAmounts out;
  if (const kube::Quantity* q = kube::find_resource(resources.limits, kube::kResourceCpu)) {
    out.cpu_limit_milli = q->milli_value();
  }
  if (const kube::Quantity* q = kube::find_resource(resources.limits, kube::kResourceMemory)) {
    out.memory_limit_bytes = q->value();
  }
  if (const kube::Quantity* q = kube::find_resource(resources.requests, kube::kResourceCpu)) {
    out.cpu_request_milli = q->milli_value();
  } else {
    out.cpu_request_milli = out.cpu_limit_milli;
  }
  if (const kube::Quantity* q = kube::find_resource(resources.requests, kube::kResourceMemory)) {
    out.memory_request_bytes = q->value();
  } else {
    out.memory_request_bytes = out.memory_limit_bytes;
  }
  return out;
}

kube::ResourceRequirements requirements_of(const cri::ResourceAmounts& amounts) {
  kube::ResourceRequirements out;
  if (amounts.cpu_request_milli) {
    out.requests.insert_or_assign(kube::kResourceCpu,
                                  kube::Quantity::from_milli(*amounts.cpu_request_milli));
  }
  if (amounts.memory_request_bytes) {
    out.requests.insert_or_assign(
        kube::kResourceMemory,
        kube::Quantity::from_int(*amounts.memory_request_bytes, kube::QuantityFormat::BinarySI));
  }
  if (amounts.cpu_limit_milli) {
    out.limits.insert_or_assign(kube::kResourceCpu,
                                kube::Quantity::from_milli(*amounts.cpu_limit_milli));
  }
  if (amounts.memory_limit_bytes) {
    out.limits.insert_or_assign(
        kube::kResourceMemory,
        kube::Quantity::from_int(*amounts.memory_limit_bytes, kube::QuantityFormat::BinarySI));
  }
  return out;
}

kube::ResourceRequirements cpu_and_memory(const kube::ResourceRequirements& resources) {
  return {cpu_and_memory_entries(resources.limits), cpu_and_memory_entries(resources.requests)};
}

}  // namespace tailor::node::allocation
