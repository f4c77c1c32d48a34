#include "actuator/pod_decision.h"

#include <algorithm>

#include "actuator/eligibility.h"
#include "actuator/pod_facts.h"
#include "kube/model/pod_resources.h"

namespace tailor::actuator {
namespace {

ResizePlan plan_for(const PodInputs& in) {
  return plan_resize_view(ResizeView{in.pod, in.policy, in.recommendations, in.limit_range,
                                     in.largest_allocatable, in.hpa_resources, false});
}

PodDecision recreate_or_nothing(const Eligibility& allowed, std::string reason) {
  if (allowed.recreate) return {PodStep::Recreate, std::move(reason)};
  return {PodStep::Nothing, std::move(reason)};
}

// A resize is in flight: follow its outcome. nullopt when it settled and the pod is free again.
std::optional<PodDecision> follow(const PodInputs& in, const Eligibility& allowed) {
  Timeouts timeouts{in.policy->deferred_timeout, in.policy->in_progress_timeout};
  Decision d = track(*in.in_flight, *in.pod, in.policy->mode, timeouts, in.now);
  switch (d.action) {
    case Action::Done:
      return std::nullopt;
    case Action::Wait:
      return PodDecision{PodStep::Wait, d.reason, {}, {}, d.wake_at};
    case Action::Recreate:
      return recreate_or_nothing(allowed, d.reason);
    case Action::RetryLater:
      break;
  }
  ResizePlan plan = plan_for(in);
  if (!plan.empty() &&
      should_resend_infeasible(*in.in_flight, requests_after(*in.pod->spec, plan))) {
    return PodDecision{PodStep::Resize, "recommendation dropped below the Infeasible resize",
                       std::move(plan)};
  }
  return PodDecision{PodStep::Nothing, d.reason};
}

}  // namespace

std::string_view to_string(PodStep step) {
  switch (step) {
    case PodStep::Nothing:
      return "Nothing";
    case PodStep::Wait:
      return "Wait";
    case PodStep::Resize:
      return "Resize";
    case PodStep::Recreate:
      return "Recreate";
  }
  return "";
}

PodDecision decide(PodInputs in) {
  Eligibility allowed = eligibility(*in.pod, in.policy->mode);
  if (!allowed.any()) return {PodStep::Nothing, allowed.reason};
  if (in.rule.mode == UpdateRule::Mode::StrategyDecides) {
    if (allowed.in_place) {
      in.recommendations = std::move(in.decided);
    } else {
      // A restart is spent by the target rule only, with VPA's patience.
      in.rule.mode = UpdateRule::Mode::Target;
      in.rule.min_age = std::max(in.rule.min_age, in.rule.recreate_min_age);
    }
  }
  // A container OOM-killed lately keeps at least its memory.
  hold_memory_after_oom(*in.pod, in.recommendations, in.now, in.rule.oom_hold);
  bool settled = false;
  if (in.in_flight) {
    if (auto followed = follow(in, allowed)) return *followed;
    settled = true;
  }
  UpdatePriority priority = update_priority_view(
      UpdateView{in.pod, in.policy, in.recommendations, in.hpa_resources, in.now, in.last_change},
      in.rule);
  PodDecision out;
  out.priority = priority;
  out.forget_in_flight = settled;
  if (!priority.wanted()) {
    out.reason = "within the update rule";
    return out;
  }
  out.reason = std::string(to_string(priority.reason));
  if (!allowed.in_place) {
    // A replacement the same as the pod (the limits or caps leave nothing to change: a
    // RequestsOnly request at its limit) would be evicted again at once, forever.
    const ResizePlan same = plan_for(in);
    if (same.blocked.empty() && same.empty()) {
      out.reason = "the recommendation is what the pod already has within its limits";
      return out;
    }
    out.step = PodStep::Recreate;
    if (!allowed.reason.empty()) out.reason += "; " + allowed.reason;
    return out;
  }
  out.plan = plan_for(in);
  if (!out.plan.blocked.empty()) {
    PodDecision fallback = recreate_or_nothing(allowed, out.plan.blocked);
    fallback.priority = priority;
    fallback.forget_in_flight = settled;
    return fallback;
  }
  out.step = out.plan.empty() ? PodStep::Nothing : PodStep::Resize;
  return out;
}

}  // namespace tailor::actuator
