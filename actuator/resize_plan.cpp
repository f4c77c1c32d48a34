#include "actuator/resize_plan.h"

#include <algorithm>

#include "actuator/hpa.h"
#include "actuator/limits.h"
#include "kube/model/pod_resources.h"
#include "kube/model/qos.h"

namespace tailor::actuator {
namespace {

using kube::Quantity;
using kube::ResourceList;

constexpr std::string_view kControlled[] = {kube::kResourceCpu, kube::kResourceMemory};

// One (container, resource) whose request this plan sets.
struct Slot {
  std::size_t container = 0;
  std::string resource{};
  policy::ControlledValues values = policy::ControlledValues::RequestsAndLimits;
};

const policy::RecommendedContainerResources* find_recommendation(
    const std::vector<policy::RecommendedContainerResources>& list, std::string_view name) {
  for (const auto& r : list) {
    if (r.container_name == name) return &r;
  }
  return nullptr;
}

std::vector<Slot> set_targets(const ResizeView& in, kube::PodSpec& spec) {
  std::vector<Slot> slots;
  for (std::size_t i = 0; i < spec.containers.size(); ++i) {
    kube::Container& c = spec.containers[i];
    auto policy = policy::container_policy_for(*in.policy, c.name);
    const auto* rec = find_recommendation(in.recommendations, c.name);
    if (!rec) continue;
    for (std::string_view resource : kControlled) {
      const Quantity* target = kube::find_resource(rec->target, resource);
      if (!target || target->sign() <= 0 || !policy.controls(resource) ||
          left_to_hpa(in.hpa_resources, c.name, resource)) {
        continue;
      }
      c.resources.requests.insert_or_assign(resource, *target);
      slots.push_back(Slot{i, std::string(resource), policy.controlled_values});
    }
  }
  return slots;
}

bool knows_allocatable(const ResizeView& in) {
  return std::any_of(std::begin(kControlled), std::end(kControlled), [&](std::string_view r) {
    return kube::find_resource(in.largest_allocatable, r) != nullptr;
  });
}

// Scales the controlled requests of `resource` down so that the pod fits the largest node.
// `requests` are the resized pod's totals; each resource is summed on its own, so fitting one
// resource leaves the totals of the others as they were.
void fit_node(const ResizeView& in, const ResourceList& requests, kube::PodSpec& spec,
              const std::vector<Slot>& slots, std::string_view resource,
              std::vector<std::string>& notes) {
  const Quantity* allocatable = kube::find_resource(in.largest_allocatable, resource);
  if (!allocatable) return;
  const Quantity* total = kube::find_resource(requests, resource);
  if (!total || *total <= *allocatable) return;
  Quantity controlled;
  for (const Slot& s : slots) {
    if (s.resource == resource)
      controlled += spec.containers[s.container].resources.requests.at(resource);
  }
  Quantity room = *allocatable - (*total - controlled);
  for (const Slot& s : slots) {
    if (s.resource != resource) continue;
    kube::Container& c = spec.containers[s.container];
    const kube::Container& old = in.pod->containers()[s.container];
    Quantity& request = c.resources.requests.at(resource);
    auto scaled =
        room.sign() > 0 ? scale_proportionally(resource, request, room, controlled) : std::nullopt;
    if (scaled && scaled->sign() > 0) {
      request = *scaled;
    } else if (const Quantity* before = kube::find_resource(old.resources.requests, resource)) {
      request = *before;
    } else {
      c.resources.requests.erase(resource);
    }
  }
  notes.push_back(std::string(resource) + ": capped to fit the largest node's allocatable " +
                  allocatable->to_string());
}

void cap_ratio(kube::Container& c, std::string_view resource, const LimitRangeItem* range,
               std::vector<std::string>& notes) {
  const Quantity* ratio =
      range ? kube::find_resource(range->max_limit_request_ratio, resource) : nullptr;
  auto limit = c.resources.limits.find(resource);
  if (!ratio || ratio->is_zero() || limit == c.resources.limits.end()) return;
  const Quantity& request = c.resources.requests.at(resource);
  auto most = scale_proportionally(resource, request, *ratio, Quantity::from_int(1));
  if (most && limit->second > *most) {
    limit->second = *most;
    notes.push_back(c.name + " " + std::string(resource) +
                    ": limit capped to the LimitRange's maxLimitRequestRatio " +
                    ratio->to_string());
  }
}

// A limit above every node's allocatable can never be used: the container's cgroup would get
// more than its node has. VPA does not look at nodes here (GetProportionalLimit caps only at
// the largest int64), so a 2:1 ratio turns a 3Gi recommendation into a 6Gi limit on 4Gi nodes,
// which reads as a mistake. A limit Tailor scales is therefore kept within the largest node's
// allocatable, or within the container's own limit when that was already above it (the user's
// choice stays), and never below the request (which fit_node keeps within the node).
void cap_node(kube::Container& c, std::string_view resource, const Quantity* original_limit,
              const ResourceList& largest, std::vector<std::string>& notes) {
  const Quantity* allocatable = kube::find_resource(largest, resource);
  auto limit = c.resources.limits.find(resource);
  if (!allocatable || limit == c.resources.limits.end()) return;
  const bool own_limit = original_limit && *original_limit > *allocatable;
  Quantity most =
      std::max(own_limit ? *original_limit : *allocatable, c.resources.requests.at(resource));
  if (limit->second <= most) return;
  limit->second = most;
  notes.push_back(c.name + " " + std::string(resource) +
                  (own_limit
                       ? ": limit kept at the container's limit " + most.to_string() +
                             ", above the largest node's allocatable " + allocatable->to_string()
                       : ": limit capped to the largest node's allocatable " + most.to_string()));
}

void set_limits(const ResizeView& in, kube::PodSpec& spec, const std::vector<Slot>& slots,
                std::vector<std::string>& notes) {
  for (const Slot& s : slots) {
    kube::Container& c = spec.containers[s.container];
    const auto& old = in.pod->containers()[s.container].resources;
    auto request = c.resources.requests.find(s.resource);
    if (request == c.resources.requests.end()) continue;
    auto limit = c.resources.limits.find(s.resource);
    if (s.values == policy::ControlledValues::RequestsOnly) {
      // The API requires request <= limit; the limit is not ours to move.
      if (limit != c.resources.limits.end() && request->second > limit->second) {
        request->second = limit->second;
        notes.push_back(c.name + " " + s.resource + ": request capped to the container's limit " +
                        limit->second.to_string());
      }
      continue;
    }
    // A running pod's limits were defaulted at creation: no LimitRange default is added to it
    // (adding a limit could change the QoS class). A pod being created gets VPA's treatment.
    const Quantity* default_limit =
        in.at_creation && in.limit_range
            ? kube::find_resource(in.limit_range->default_limit, s.resource)
            : nullptr;
    auto scaled = proportional_limit(s.resource, kube::find_resource(old.limits, s.resource),
                                     kube::find_resource(old.requests, s.resource), request->second,
                                     default_limit);
    if (scaled) c.resources.limits.insert_or_assign(s.resource, *scaled);
    cap_ratio(c, s.resource, in.limit_range, notes);
    cap_node(c, s.resource, kube::find_resource(old.limits, s.resource), in.largest_allocatable,
             notes);
  }
}

bool resource_changed(const kube::ResourceRequirements& a, const kube::ResourceRequirements& b,
                      std::string_view resource) {
  for (auto [x, y] : {std::pair{&a.requests, &b.requests}, std::pair{&a.limits, &b.limits}}) {
    const Quantity* qa = kube::find_resource(*x, resource);
    const Quantity* qb = kube::find_resource(*y, resource);
    if ((qa == nullptr) != (qb == nullptr) || (qa && *qa != *qb)) return true;
  }
  return false;
}

bool same_controlled(const kube::ResourceRequirements& a, const kube::ResourceRequirements& b) {
  return std::none_of(std::begin(kControlled), std::end(kControlled),
                      [&](std::string_view r) { return resource_changed(a, b, r); });
}

ResourceList controlled_only(const ResourceList& list) {
  ResourceList out;
  for (std::string_view r : kControlled) {
    if (const Quantity* q = kube::find_resource(list, r)) out.insert_or_assign(r, *q);
  }
  return out;
}

int compare_request(const ContainerChange& c, std::string_view r) {
  const Quantity* before = kube::find_resource(c.before.requests, r);
  const Quantity* after = kube::find_resource(c.after.requests, r);
  Quantity b = before ? *before : Quantity();
  Quantity a = after ? *after : Quantity();
  return a > b ? 1 : (a < b ? -1 : 0);
}

}  // namespace

bool ContainerChange::increases_requests() const {
  return std::any_of(std::begin(kControlled), std::end(kControlled),
                     [&](std::string_view r) { return compare_request(*this, r) > 0; });
}

bool ContainerChange::decreases_requests() const {
  return std::any_of(std::begin(kControlled), std::end(kControlled),
                     [&](std::string_view r) { return compare_request(*this, r) < 0; });
}

bool ResizePlan::scale_up() const {
  return std::any_of(changes.begin(), changes.end(),
                     [](const ContainerChange& c) { return c.increases_requests(); });
}

kube::ResizePatch ResizePlan::patch() const {
  kube::ResizePatch out;
  for (const auto& change : changes) {
    out.containers.push_back(kube::ContainerResize{
        change.name,
        {controlled_only(change.after.limits), controlled_only(change.after.requests)}});
  }
  return out;
}

kube::ResourceList requests_after(const PodSpecFacts& spec, const ResizePlan& plan) {
  kube::Pod resized = sizing_pod(spec);
  for (const ContainerChange& change : plan.changes) {
    for (kube::Container& c : resized.spec.containers) {
      if (c.name == change.name) c.resources = change.after;
    }
  }
  return kube::pod_requests(resized);
}

ResizePlan plan_resize(const ResizeInputs& in) {
  const PodFacts pod = pod_facts(*in.pod);
  return plan_resize_view(ResizeView{&pod, in.policy, in.recommendations, in.limit_range,
                                     in.largest_allocatable, in.hpa_resources, in.at_creation});
}

ResizePlan plan_resize_view(const ResizeView& in) {
  ResizePlan plan;
  kube::Pod sized = sizing_pod(*in.pod->spec);
  kube::PodSpec& spec = sized.spec;
  std::vector<Slot> slots = set_targets(in, spec);
  if (knows_allocatable(in)) {
    const ResourceList requests = kube::pod_requests(sized);
    for (std::string_view resource : kControlled) {
      fit_node(in, requests, spec, slots, resource, plan.notes);
    }
  }
  set_limits(in, spec, slots, plan.notes);
  for (std::size_t i = 0; i < spec.containers.size(); ++i) {
    const auto& before = in.pod->containers()[i].resources;
    const auto& after = spec.containers[i].resources;
    if (!same_controlled(before, after)) {
      plan.changes.push_back(ContainerChange{spec.containers[i].name, before, after});
    }
  }
  // A plan that changes nothing cannot change the QoS class: skip computing it.
  if (in.at_creation || plan.changes.empty()) return plan;
  // As kube::pod_qos: the class the API stored, else computed from the spec.
  kube::QosClass current = in.pod->status->qos_class
                               ? *in.pod->status->qos_class
                               : kube::compute_pod_qos(sizing_pod(*in.pod->spec).spec);
  kube::QosClass resized = kube::compute_pod_qos(spec);
  if (resized != current) {
    plan.blocked =
        "Pod QOS Class may not change as a result of resizing: this resize would make "
        "the pod " +
        std::string(kube::to_string(resized)) + ", it is " + std::string(kube::to_string(current));
    plan.changes.clear();
  }
  return plan;
}

bool restarts_containers(const kube::Pod& pod, const ResizePlan& plan) {
  for (const auto& change : plan.changes) {
    const kube::Container* c = kube::find_container(pod.spec, change.name);
    if (!c) continue;
    for (const auto& policy : c->resize_policy) {
      if (policy.restart_policy == "RestartContainer" &&
          resource_changed(change.before, change.after, policy.resource_name)) {
        return true;
      }
    }
  }
  return false;
}

}  // namespace tailor::actuator
