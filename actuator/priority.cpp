#include "actuator/priority.h"

#include <algorithm>
#include <cmath>

#include "actuator/hpa.h"

namespace tailor::actuator {
namespace {

using kube::Quantity;

constexpr std::string_view kControlled[] = {kube::kResourceCpu, kube::kResourceMemory};

const policy::RecommendedContainerResources* find_recommendation(const UpdateView& in,
                                                                 std::string_view name) {
  for (const auto& r : in.recommendations) {
    if (r.container_name == name) return &r;
  }
  return nullptr;
}

bool outside(const Quantity& request, const policy::RecommendedContainerResources& r,
             std::string_view resource) {
  const Quantity* lower = kube::find_resource(r.lower_bound, resource);
  const Quantity* upper = kube::find_resource(r.upper_bound, resource);
  return (lower && request < *lower) || (upper && !upper->is_zero() && request > *upper);
}

struct Totals {
  Quantity request, target;
};

}  // namespace

std::string_view to_string(UpdateReason reason) {
  switch (reason) {
    case UpdateReason::None:
      return "None";
    case UpdateReason::OutsideBounds:
      return "OutsideBounds";
    case UpdateReason::OomKilled:
      return "OOMKilled";
    case UpdateReason::RelativeChange:
      return "RelativeChange";
    case UpdateReason::StrategyRule:
      return "StrategyRule";
  }
  return "";
}

UpdatePriority update_priority(const UpdateInputs& in, const UpdateRule& rule) {
  const PodFacts pod = pod_facts(*in.pod);
  return update_priority_view(
      UpdateView{&pod, in.policy, in.recommendations, in.hpa_resources, in.now, in.last_change},
      rule);
}

UpdatePriority update_priority_view(const UpdateView& in, const UpdateRule& rule) {
  UpdatePriority out;
  auto since = in.last_change ? in.last_change : in.pod->started;
  Totals totals[2];
  bool oom = false;
  for (const kube::Container& c : in.pod->containers()) {
    auto policy = policy::container_policy_for(*in.policy, c.name);
    const auto* rec = find_recommendation(in, c.name);
    if (!rec) continue;
    for (std::size_t i = 0; i < 2; ++i) {
      std::string_view resource = kControlled[i];
      const Quantity* target = kube::find_resource(rec->target, resource);
      if (!target || !policy.controls(resource) ||
          left_to_hpa(in.hpa_resources, c.name, resource)) {
        continue;
      }
      const Quantity* found = kube::find_resource(c.resources.requests, resource);
      Quantity request = found ? *found : Quantity();
      totals[i].request += request;
      totals[i].target += *target;
      if (*target > request) out.scale_up = true;
      if (outside(request, *rec, resource)) out.outside_bounds = true;
      if (resource == kube::kResourceMemory && *target > request) {
        const ContainerStatusFacts* status = in.pod->find_status(c.name);
        auto killed = status ? status->oom_killed_at : std::nullopt;
        if (killed && (!since || *killed >= *since)) oom = true;
      }
    }
  }
  for (const Totals& t : totals) {
    if (t.target == t.request) continue;
    if (t.request.sign() <= 0) {
      out.relative_change = INFINITY;
      out.outside_bounds = true;
      continue;
    }
    out.relative_change += std::abs((t.target - t.request).as_double() / t.request.as_double());
  }
  if (rule.mode == UpdateRule::Mode::StrategyDecides) {
    // The targets are the strategy's chosen requests: every difference is a change it wants.
    if (oom) {
      out.reason = UpdateReason::OomKilled;
    } else if (out.relative_change > 0) {
      out.reason = UpdateReason::StrategyRule;
    }
  } else if (out.outside_bounds) {
    out.reason = UpdateReason::OutsideBounds;
  } else if (oom) {
    out.reason = UpdateReason::OomKilled;
  } else if (out.relative_change >= rule.min_relative_change && since &&
             in.now - *since >= rule.min_age) {
    out.reason = UpdateReason::RelativeChange;
  }
  return out;
}

bool hold_memory_after_oom(const PodFacts& pod,
                           std::vector<policy::RecommendedContainerResources>& recommendations,
                           kube::TimePoint now, std::chrono::seconds hold) {
  bool changed = false;
  for (policy::RecommendedContainerResources& r : recommendations) {
    const ContainerStatusFacts* status = pod.find_status(r.container_name);
    if (!status || !status->oom_killed_at || now - *status->oom_killed_at > hold) continue;
    const kube::Container* c = pod.find_container(r.container_name);
    const Quantity* request =
        c ? kube::find_resource(c->resources.requests, kube::kResourceMemory) : nullptr;
    if (!request) continue;
    for (kube::ResourceList* list : {&r.target, &r.upper_bound}) {
      const Quantity* value = kube::find_resource(*list, kube::kResourceMemory);
      if (value && *value < *request) {
        list->insert_or_assign(std::string(kube::kResourceMemory), *request);
        changed = true;
      }
    }
  }
  return changed;
}

bool more_urgent(const UpdatePriority& a, const UpdatePriority& b) {
  if (a.scale_up != b.scale_up) return a.scale_up;
  if (a.outside_bounds != b.outside_bounds) return a.outside_bounds;
  return a.relative_change > b.relative_change;
}

}  // namespace tailor::actuator
