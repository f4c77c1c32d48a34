#include "node-agent/allocation/resize_admission.h"

#include <cstdint>
#include <optional>
#include <string>

#include "kube/model/pod_resources.h"
#include "kube/model/qos.h"

namespace tailor::node::allocation {
namespace {

// The kubelet compares CPU in millicores and everything else in whole units (both rounded up).
std::int64_t amount(std::string_view resource, const kube::Quantity& quantity) {
  return resource == kube::kResourceCpu ? quantity.milli_value() : quantity.value();
}

std::int64_t amount_of(const kube::ResourceList& list, std::string_view resource) {
  const kube::Quantity* quantity = kube::find_resource(list, resource);
  return quantity == nullptr ? 0 : amount(resource, *quantity);
}

void require_non_negative(const kube::ResourceList& list, std::string_view what) {
  for (const auto& [name, quantity] : list) {
    if (quantity.sign() < 0) {
      throw AdmissionError(std::string(what) + " " + name +
                           " is negative: " + std::to_string(amount(name, quantity)));
    }
  }
}

std::string pod_name(const kube::Pod& pod) {
  return "pod " + pod.metadata.namespace_ + "/" + pod.metadata.name;
}

std::optional<AdmissionResult> exceeds_capacity(const kube::ResourceList& requests,
                                                const kube::ResourceList& allocatable) {
  // Memory is reported first when both exceed, as the kubelet does.
  for (std::string_view resource : {kube::kResourceMemory, kube::kResourceCpu}) {
    const std::int64_t requested = amount_of(requests, resource);
    const std::int64_t capacity = amount_of(allocatable, resource);
    if (requested > capacity) {
      return AdmissionResult{AdmissionVerdict::Infeasible,
                             "Node didn't have enough capacity: " + std::string(resource) +
                                 ", requested: " + std::to_string(requested) +
                                 ", capacity: " + std::to_string(capacity)};
    }
  }
  return std::nullopt;
}

// Extended resources the node does not advertise are left to their device plugin, as the
// kubelet drops them before its fit check; native ones count as zero allocatable.
bool checked_when_absent(std::string_view resource) {
  return resource.find('/') == std::string_view::npos;
}

std::optional<AdmissionResult> insufficient(std::string_view resource,
                                            const kube::ResourceList& requests,
                                            const kube::ResourceList& allocatable,
                                            const kube::ResourceList& used_by_others) {
  const std::int64_t requested = amount_of(requests, resource);
  const std::int64_t used = amount_of(used_by_others, resource);
  const std::int64_t capacity = amount_of(allocatable, resource);
  // 128-bit: saturated int64 quantities must not wrap.
  if (requested <= 0 || static_cast<__int128>(requested) + used <= capacity) return std::nullopt;
  return AdmissionResult{AdmissionVerdict::Deferred,
                         "Node didn't have enough resource: " + std::string(resource) +
                             ", requested: " + std::to_string(requested) + ", used: " +
                             std::to_string(used) + ", capacity: " + std::to_string(capacity)};
}

// The scheduler's fit order: cpu, memory, ephemeral-storage, then the others by name.
std::optional<AdmissionResult> exceeds_free(const kube::ResourceList& requests,
                                            const kube::ResourceList& allocatable,
                                            const kube::ResourceList& used_by_others) {
  for (std::string_view resource :
       {kube::kResourceCpu, kube::kResourceMemory, kube::kResourceEphemeralStorage}) {
    if (auto result = insufficient(resource, requests, allocatable, used_by_others)) return result;
  }
  for (const auto& [name, quantity] : requests) {
    if (name == kube::kResourceCpu || name == kube::kResourceMemory ||
        name == kube::kResourceEphemeralStorage) {
      continue;
    }
    if (!allocatable.contains(name) && !checked_when_absent(name)) continue;
    if (auto result = insufficient(name, requests, allocatable, used_by_others)) return result;
  }
  return std::nullopt;
}

AdmissionResult admit_requests(const kube::ResourceList& requests,
                               const kube::ResourceList& allocatable,
                               const kube::ResourceList& used_by_others) {
  if (auto result = exceeds_capacity(requests, allocatable)) return *result;
  if (auto result = exceeds_free(requests, allocatable, used_by_others)) return *result;
  return {};
}

kube::ResourceList checked_requests(const kube::Pod& pod, const kube::ResourceList& allocatable,
                                    const kube::ResourceList& other_pods_allocated) {
  require_non_negative(allocatable, "node allocatable");
  require_non_negative(other_pods_allocated, "allocated requests of the other pods,");
  kube::ResourceList requests = kube::pod_requests(pod);
  require_non_negative(requests, pod_name(pod) + " requests");
  return requests;
}

bool changes(const kube::ResourceList& desired, const kube::ResourceList& allocated,
             std::string_view resource) {
  return amount_of(desired, resource) != amount_of(allocated, resource);
}

std::optional<AdmissionResult> unsupported(const kube::Pod& pod, const kube::ResourceList& desired,
                                           const kube::ResourceList& allocated,
                                           const AdmissionOptions& options) {
  if (kube::pod_qos(pod) != kube::QosClass::Guaranteed) return std::nullopt;
  if (options.cpu_manager_policy == CpuManagerPolicy::Static &&
      changes(desired, allocated, kube::kResourceCpu)) {
    return AdmissionResult{
        AdmissionVerdict::Infeasible,
        "Resize is infeasible for Guaranteed Pods alongside CPU Manager static policy"};
  }
  if (options.memory_manager_policy == MemoryManagerPolicy::Static &&
      changes(desired, allocated, kube::kResourceMemory)) {
    return AdmissionResult{
        AdmissionVerdict::Infeasible,
        "Resize is infeasible for Guaranteed Pods alongside Memory Manager static policy"};
  }
  return std::nullopt;
}

}  // namespace

std::string_view to_string(AdmissionVerdict verdict) {
  switch (verdict) {
    case AdmissionVerdict::Accept:
      return "Accept";
    case AdmissionVerdict::Deferred:
      return "Deferred";
    case AdmissionVerdict::Infeasible:
      return "Infeasible";
  }
  return "Unknown";
}

AdmissionResult admit_pod(const kube::Pod& pod, const kube::ResourceList& node_allocatable,
                          const kube::ResourceList& other_pods_allocated) {
  const kube::ResourceList requests = checked_requests(pod, node_allocatable, other_pods_allocated);
  return admit_requests(requests, node_allocatable, other_pods_allocated);
}

AdmissionResult admit_resize(const kube::Pod& pod, const kube::ResourceList& allocated_requests,
                             const kube::ResourceList& node_allocatable,
                             const kube::ResourceList& other_pods_allocated,
                             const AdmissionOptions& options) {
  const kube::ResourceList requests = checked_requests(pod, node_allocatable, other_pods_allocated);
  if (auto result = unsupported(pod, requests, allocated_requests, options)) return *result;
  return admit_requests(requests, node_allocatable, other_pods_allocated);
}

}  // namespace tailor::node::allocation
