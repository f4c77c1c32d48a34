#include "kube/model/pod_resources.h"

#include <functional>

namespace tailor::kube {
namespace {

bool is_pod_level_resource(std::string_view name) {
  return name == kResourceCpu || name == kResourceMemory ||
         name.starts_with(kResourceHugePagesPrefix);
}

bool names_pod_level_resource(const ResourceList& list) {
  for (const auto& [name, quantity] : list) {
    if (is_pod_level_resource(name)) return true;
  }
  return false;
}

// The resources one container contributes; may be null (contributes nothing).
using ContainerResources =
    std::function<const ResourceList*(const Container&, const ContainerStatus*)>;

ResourceList aggregate(const Pod& pod, const ContainerResources& of) {
  auto status_of = [&](const Container& c) { return find_container_status(pod.status, c.name); };
  ResourceList total;
  for (const Container& c : pod.spec.containers) {
    if (const ResourceList* r = of(c, status_of(c))) add_resources(total, *r);
  }
  ResourceList sidecars;   // sidecars declared so far
  ResourceList init_peak;  // the largest init-phase footprint
  for (const Container& c : pod.spec.init_containers) {
    const ResourceList* r = of(c, status_of(c));
    if (is_sidecar(c)) {
      if (r) {
        add_resources(total, *r);
        add_resources(sidecars, *r);
      }
      max_resources(init_peak, sidecars);
    } else {
      ResourceList phase = sidecars;
      if (r) add_resources(phase, *r);
      max_resources(init_peak, phase);
    }
  }
  max_resources(total, init_peak);
  return total;
}

ResourceList max_of(std::initializer_list<ResourceList> lists) {
  ResourceList result;
  for (const ResourceList& list : lists) max_resources(result, list);
  return result;
}

const ResourceList* spec_requests(const Container& c, const ContainerStatus*) {
  return &c.resources.requests;
}
const ResourceList* spec_limits(const Container& c, const ContainerStatus*) {
  return &c.resources.limits;
}

// Kubernetes treats an empty status list as unset only when it is nil; an empty decoded list is
// indistinguishable, so "empty" means unset here.
ResourceList container_requests(const Pod& pod, bool infeasible) {
  auto allocated = [infeasible](const Container& c,
                                const ContainerStatus* s) -> const ResourceList* {
    if (s && !s->allocated_resources.empty()) return &s->allocated_resources;
    return infeasible ? nullptr : &c.resources.requests;
  };
  auto actual = [&](const Container& c, const ContainerStatus* s) -> const ResourceList* {
    if (s && s->resources && !s->resources->requests.empty()) return &s->resources->requests;
    return allocated(c, s);
  };
  ResourceList allocated_total = aggregate(pod, allocated);
  ResourceList actual_total = aggregate(pod, actual);
  if (infeasible) return max_of({actual_total, allocated_total});
  return max_of({aggregate(pod, spec_requests), actual_total, allocated_total});
}

ResourceList container_limits(const Pod& pod, bool infeasible) {
  auto actual = [infeasible](const Container& c, const ContainerStatus* s) -> const ResourceList* {
    if (s && s->resources && !s->resources->limits.empty()) return &s->resources->limits;
    return infeasible ? nullptr : &c.resources.limits;
  };
  ResourceList actual_total = aggregate(pod, actual);
  if (infeasible) return actual_total;
  return max_of({aggregate(pod, spec_limits), actual_total});
}

void apply_pod_level(ResourceList& result, const ResourceList& pod_level) {
  for (const auto& [name, quantity] : pod_level) {
    if (is_pod_level_resource(name)) result.insert_or_assign(name, quantity);
  }
}

}  // namespace

bool is_resize_infeasible(const PodStatus& status) {
  const PodCondition* pending = find_condition(status, kPodResizePending);
  return pending && pending->reason == "Infeasible";
}

ResourceList pod_requests(const Pod& pod, const PodResourcesOptions& options) {
  ResourceList result = options.use_status_resources
                            ? container_requests(pod, is_resize_infeasible(pod.status))
                            : aggregate(pod, spec_requests);
  const auto& pod_level = pod.spec.resources;
  if (!options.skip_pod_level_resources && pod_level &&
      names_pod_level_resource(pod_level->requests)) {
    apply_pod_level(result, pod_level->requests);
  }
  if (!options.exclude_overhead) add_resources(result, pod.spec.overhead);
  return result;
}

ResourceList pod_limits(const Pod& pod, const PodResourcesOptions& options) {
  ResourceList result = options.use_status_resources
                            ? container_limits(pod, is_resize_infeasible(pod.status))
                            : aggregate(pod, spec_limits);
  const auto& pod_level = pod.spec.resources;
  if (!options.skip_pod_level_resources && pod_level &&
      (names_pod_level_resource(pod_level->requests) ||
       names_pod_level_resource(pod_level->limits))) {
    apply_pod_level(result, pod_level->limits);
  }
  if (!options.exclude_overhead) {
    for (const auto& [name, quantity] : pod.spec.overhead) {
      auto it = result.find(name);
      if (it != result.end() && !it->second.is_zero()) it->second += quantity;
    }
  }
  return result;
}

}  // namespace tailor::kube
