#include "node-agent/allocation/resource_bounds.h"

#include "kube/model/resources.h"

namespace tailor::node::allocation {
namespace {

struct Bound {
  std::string_view resource;
  kube::Quantity max;
  std::string max_text;
};

const Bound& bound_of(std::string_view resource) {
  static const Bound cpu{kube::kResourceCpu, kube::Quantity::from_milli(kMaxCgroupCpuMilli),
                         std::to_string(kMaxCgroupCpuMilli) + "m"};
  static const Bound memory{kube::kResourceMemory, kube::Quantity::from_int(kMaxCgroupMemoryBytes),
                            std::to_string(kMaxCgroupMemoryBytes)};
  return resource == kube::kResourceCpu ? cpu : memory;
}

std::optional<std::string> check(const std::string& who, const char* requirement,
                                 const kube::ResourceList& list) {
  for (std::string_view resource : {kube::kResourceCpu, kube::kResourceMemory}) {
    const kube::Quantity* q = kube::find_resource(list, resource);
    const Bound& bound = bound_of(resource);
    if (!q || *q <= bound.max) continue;
    return who + ": " + requirement + "." + std::string(resource) + " " + q->to_string() +
           " is more than a cgroup can hold (at most " + bound.max_text + ")";
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> unrepresentable_resources(const kube::Pod& pod) {
  for (const auto* list : {&pod.spec.containers, &pod.spec.init_containers}) {
    for (const kube::Container& c : *list) {
      const std::string who = "container \"" + c.name + "\"";
      if (auto why = check(who, "requests", c.resources.requests)) return why;
      if (auto why = check(who, "limits", c.resources.limits)) return why;
    }
  }
  // The pod cgroup holds sums of the regular containers' amounts plus overhead.
  kube::ResourceList requests = pod.spec.overhead, limits = pod.spec.overhead;
  try {
    for (const kube::Container& c : pod.spec.containers) {
      kube::add_resources(requests, c.resources.requests);
      kube::add_resources(limits, c.resources.limits);
    }
  } catch (const kube::QuantityError& e) {
    return "pod: the sum of its containers' resources overflows: " + std::string(e.what());
  }
  if (auto why = check("pod", "requests (sum)", requests)) return why;
  return check("pod", "limits (sum)", limits);
}

}  // namespace tailor::node::allocation
