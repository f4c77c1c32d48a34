#include "actuator/caps.h"

#include "actuator/limits.h"

namespace tailor::actuator {
namespace {

using kube::Quantity;
using kube::ResourceList;

constexpr std::string_view kControlled[] = {kube::kResourceCpu, kube::kResourceMemory};

void cap_to_min(ResourceList& list, const ResourceList& min) {
  for (auto& [name, value] : list) {
    const Quantity* bound = kube::find_resource(min, name);
    if (bound && !bound->is_zero() && value < *bound) value = *bound;
  }
}

void cap_to_max(ResourceList& list, const ResourceList& max) {
  for (auto& [name, value] : list) {
    const Quantity* bound = kube::find_resource(max, name);
    if (bound && !bound->is_zero() && value > *bound) value = *bound;
  }
}

// Request bounds that keep the container's limit within the LimitRange's `limit_bounds`.
ResourceList request_bounds(const kube::Container& container, const ResourceList& limit_bounds,
                            const ResourceList& defaults) {
  ResourceList out;
  for (std::string_view resource : kControlled) {
    const Quantity* bound = kube::find_resource(limit_bounds, resource);
    if (!bound) continue;
    out.insert_or_assign(
        resource,
        boundary_request(resource, kube::find_resource(container.resources.requests, resource),
                         kube::find_resource(container.resources.limits, resource), *bound,
                         kube::find_resource(defaults, resource)));
  }
  return out;
}

void apply_limit_range(ResourceList& list, const kube::Container& container,
                       const LimitRangeItem& range) {
  ResourceList min = request_bounds(container, range.min, range.default_limit);
  // LimitRanger checks the request against min too, not only the limit.
  for (const auto& [name, bound] : range.min) {
    Quantity& current = min[name];
    if (bound > current) current = bound;
  }
  cap_to_min(list, min);
  cap_to_max(list, request_bounds(container, range.max, range.default_limit));
}

void tighten(ResourceList& into, const ResourceList& from, bool keep_smaller) {
  for (const auto& [name, value] : from) {
    auto [it, inserted] = into.try_emplace(name, value);
    if (!inserted && (keep_smaller ? value < it->second : value > it->second)) it->second = value;
  }
}

std::optional<LimitRangeItem> merged(const std::vector<LimitRangeItem>& items,
                                     std::string_view type) {
  std::optional<LimitRangeItem> out;
  for (const auto& item : items) {
    if (item.type != type) continue;
    if (!out) {
      out = item;
      continue;
    }
    tighten(out->max, item.max, true);
    tighten(out->min, item.min, false);
    tighten(out->max_limit_request_ratio, item.max_limit_request_ratio, true);
    for (const auto& [name, value] : item.default_limit)
      out->default_limit.try_emplace(name, value);
    for (const auto& [name, value] : item.default_request) {
      out->default_request.try_emplace(name, value);
    }
  }
  return out;
}

using Field = ResourceList policy::RecommendedContainerResources::*;

// Multiplies every container's `field`[resource] by numerator/denominator.
void scale_all(std::vector<policy::RecommendedContainerResources>& recs, Field field,
               std::string_view resource, const Quantity& numerator, const Quantity& denominator) {
  for (auto& r : recs) {
    auto it = (r.*field).find(resource);
    if (it == (r.*field).end()) continue;
    if (auto scaled = scale_proportionally(resource, it->second, numerator, denominator)) {
      it->second = *scaled;
    }
  }
}

void apply_pod_limit_range(std::vector<policy::RecommendedContainerResources>& recs,
                           const kube::Pod& pod, const LimitRangeItem& item,
                           std::string_view resource, Field field) {
  const Quantity* min_p = kube::find_resource(item.min, resource);
  const Quantity* max_p = kube::find_resource(item.max, resource);
  const Quantity* default_p = kube::find_resource(item.default_limit, resource);
  Quantity min = min_p ? *min_p : Quantity();
  Quantity max = max_p ? *max_p : Quantity();
  Quantity sum_limit, sum_recommendation;
  for (const auto& r : recs) {
    const Quantity* value = kube::find_resource(r.*field, resource);
    const kube::Container* c = kube::find_container(pod.spec, r.container_name);
    if (!value || !c) continue;
    auto limit =
        proportional_limit(resource, kube::find_resource(c->resources.limits, resource),
                           kube::find_resource(c->resources.requests, resource), *value, default_p);
    if (limit) sum_limit += *limit;
    sum_recommendation += *value;
  }
  bool fits = min <= sum_limit && min <= sum_recommendation && (max.is_zero() || max >= sum_limit);
  if (fits) return;
  if (min > sum_recommendation) {
    scale_all(recs, field, resource, min, sum_recommendation);
    return;
  }
  Quantity target_total = !max.is_zero() && max < sum_limit ? max : min;
  scale_all(recs, field, resource, target_total, sum_limit);
}

}  // namespace

std::optional<LimitRangeItem> container_limit_range(const std::vector<LimitRangeItem>& items) {
  return merged(items, "Container");
}

std::optional<LimitRangeItem> pod_limit_range(const std::vector<LimitRangeItem>& items) {
  return merged(items, "Pod");
}

void cap_to_pod_limit_range(std::vector<policy::RecommendedContainerResources>& recommendations,
                            const kube::Pod& pod, const LimitRangeItem& pod_item) {
  using R = policy::RecommendedContainerResources;
  for (Field field : {&R::upper_bound, &R::target, &R::lower_bound}) {
    for (std::string_view resource : kControlled) {
      apply_pod_limit_range(recommendations, pod, pod_item, resource, field);
    }
  }
}

ResourceList cap_resources(ResourceList recommendation, const kube::Container& container,
                           const policy::EffectiveContainerPolicy& policy,
                           const LimitRangeItem* limit_range) {
  if (limit_range) apply_limit_range(recommendation, container, *limit_range);
  cap_to_min(recommendation, policy.min_allowed);
  cap_to_max(recommendation, policy.max_allowed);
  return recommendation;
}

policy::RecommendedContainerResources cap_recommendation(
    const policy::RecommendedContainerResources& recommendation, const kube::Container& container,
    const policy::EffectiveContainerPolicy& policy, const LimitRangeItem* limit_range) {
  policy::RecommendedContainerResources out = recommendation;
  out.target = cap_resources(recommendation.target, container, policy, limit_range);
  out.lower_bound = cap_resources(recommendation.lower_bound, container, policy, limit_range);
  out.upper_bound = cap_resources(recommendation.upper_bound, container, policy, limit_range);
  return out;
}

}  // namespace tailor::actuator
