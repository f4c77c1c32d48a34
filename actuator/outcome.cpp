#include "actuator/outcome.h"

#include "kube/observe/duration.h"

namespace tailor::actuator {
namespace {

using kube::Quantity;

constexpr ResizeStatus kStatuses[] = {ResizeStatus::None,       ResizeStatus::Proposed,
                                      ResizeStatus::Deferred,   ResizeStatus::Infeasible,
                                      ResizeStatus::InProgress, ResizeStatus::Error,
                                      ResizeStatus::Done};

bool about_older_resize(const kube::PodCondition& c, std::int64_t generation) {
  return c.observed_generation != 0 && generation != 0 && c.observed_generation < generation;
}

ObservedResize from_legacy(std::string_view resize) {
  if (resize == "Proposed") return {ResizeStatus::Proposed, ""};
  if (resize == "InProgress") return {ResizeStatus::InProgress, ""};
  if (resize == "Infeasible") return {ResizeStatus::Infeasible, ""};
  return {ResizeStatus::Deferred, ""};  // Deferred, and unknown values mean Deferred
}

bool same(const kube::ResourceList& want, const kube::ResourceList& have) {
  for (std::string_view r : {kube::kResourceCpu, kube::kResourceMemory}) {
    const Quantity* w = kube::find_resource(want, r);
    const Quantity* h = kube::find_resource(have, r);
    if (w && (!h || *w != *h)) return false;
  }
  return true;
}

// Whether the runtime reports what the spec asks, for every container that reports at all.
bool actual_matches_desired(const PodFacts& pod) {
  bool any = false;
  for (const auto& c : pod.containers()) {
    const ContainerStatusFacts* status = pod.find_status(c.name);
    if (!status || !status->actual) continue;
    any = true;
    if (!same(c.resources.requests, status->actual->requests) ||
        !same(c.resources.limits, status->actual->limits)) {
      return false;
    }
  }
  return any;
}

std::string for_how_long(std::chrono::seconds d) {
  return kube::format_duration(std::chrono::duration_cast<kube::Duration>(d));
}

std::string with_message(std::string text, const std::string& message) {
  return message.empty() ? text : text + ": " + message;
}

Decision wait_until(kube::TimePoint since, std::chrono::seconds timeout, std::string reason) {
  return {Action::Wait, std::move(reason), since + timeout};
}

Decision on_timeout(policy::UpdateMode mode, std::string reason) {
  if (mode == policy::UpdateMode::InPlace) {
    return {Action::RetryLater, reason + "; InPlace mode never recreates", std::nullopt};
  }
  return {Action::Recreate, std::move(reason), std::nullopt};
}

}  // namespace

std::string_view to_string(ResizeStatus status) {
  switch (status) {
    case ResizeStatus::None:
      return "None";
    case ResizeStatus::Proposed:
      return "Proposed";
    case ResizeStatus::Deferred:
      return "Deferred";
    case ResizeStatus::Infeasible:
      return "Infeasible";
    case ResizeStatus::InProgress:
      return "InProgress";
    case ResizeStatus::Error:
      return "Error";
    case ResizeStatus::Done:
      return "Done";
  }
  return "";
}

std::optional<ResizeStatus> parse_resize_status(std::string_view text) {
  for (ResizeStatus s : kStatuses) {
    if (text == to_string(s)) return s;
  }
  return std::nullopt;
}

std::string_view to_string(Action action) {
  switch (action) {
    case Action::Wait:
      return "Wait";
    case Action::Done:
      return "Done";
    case Action::Recreate:
      return "Recreate";
    case Action::RetryLater:
      return "RetryLater";
  }
  return "";
}

bool is_memory_below_usage(std::string_view message) {
  return message.find("memory limit (") != std::string_view::npos &&
         message.find("below current usage") != std::string_view::npos;
}

ObservedResize observe_resize(const kube::Pod& pod) { return observe_resize(pod_facts(pod)); }

ObservedResize observe_resize(const PodFacts& pod) {
  std::int64_t generation = pod.generation;
  const kube::PodCondition* pending = pod.find_condition(kube::kPodResizePending);
  if (pending && pending->status == "True") {
    if (about_older_resize(*pending, generation)) return {ResizeStatus::Proposed, ""};
    ResizeStatus s =
        pending->reason == "Infeasible" ? ResizeStatus::Infeasible : ResizeStatus::Deferred;
    return {s, pending->message};
  }
  const kube::PodCondition* in_progress = pod.find_condition(kube::kPodResizeInProgress);
  if (in_progress && in_progress->status == "True") {
    if (in_progress->reason == "Error") return {ResizeStatus::Error, in_progress->message};
    return {ResizeStatus::InProgress, in_progress->message};
  }
  const PodStatusFacts& status = *pod.status;
  if (!status.legacy_resize.empty()) return from_legacy(status.legacy_resize);
  if (status.observed_generation != 0 && generation != 0 &&
      status.observed_generation < generation) {
    return {ResizeStatus::Proposed, ""};
  }
  return {actual_matches_desired(pod) ? ResizeStatus::Done : ResizeStatus::None, ""};
}

Decision track(ResizeState& state, const kube::Pod& pod, policy::UpdateMode mode,
               const Timeouts& timeouts, kube::TimePoint now) {
  return track(state, pod_facts(pod), mode, timeouts, now);
}

Decision track(ResizeState& state, const PodFacts& pod, policy::UpdateMode mode,
               const Timeouts& timeouts, kube::TimePoint now) {
  if (state.generation != 0 && pod.generation > state.generation) {
    return {Action::Done,
            "superseded: the pod changed since this resize (generation " +
                std::to_string(state.generation) + " -> " + std::to_string(pod.generation) + ")",
            std::nullopt};
  }
  ObservedResize seen = observe_resize(pod);
  if (seen.status != state.status) {
    state.status = seen.status;
    state.since = now;
  }
  state.message = seen.message;
  const bool in_place_only = mode == policy::UpdateMode::InPlace;
  switch (state.status) {
    case ResizeStatus::Done:
      return {Action::Done, "resize completed", std::nullopt};
    case ResizeStatus::Deferred: {
      if (in_place_only) {
        return {Action::Wait, with_message("resize Deferred; InPlace mode waits", state.message),
                std::nullopt};
      }
      std::string reason =
          with_message("resize Deferred for " + for_how_long(timeouts.deferred), state.message);
      if (now - state.since >= timeouts.deferred) return {Action::Recreate, reason, std::nullopt};
      return wait_until(state.since, timeouts.deferred,
                        with_message("resize Deferred", state.message));
    }
    case ResizeStatus::Infeasible:
      if (in_place_only) {
        return {Action::RetryLater,
                with_message("resize Infeasible; InPlace mode retries when the recommendation "
                             "drops",
                             state.message),
                std::nullopt};
      }
      return {Action::Recreate, with_message("resize Infeasible", state.message), std::nullopt};
    case ResizeStatus::Error:
      if (is_memory_below_usage(state.message)) {
        return {Action::Wait, with_message("resize waits for memory usage to drop", state.message),
                std::nullopt};
      }
      return on_timeout(mode, with_message("resize failed", state.message));
    case ResizeStatus::InProgress:
    case ResizeStatus::Proposed:
    case ResizeStatus::None:
      break;
  }
  std::string phase =
      state.status == ResizeStatus::InProgress ? "resize in progress" : "resize not yet acted on";
  if (now - state.since >= timeouts.in_progress) {
    return on_timeout(mode, phase + " for " + for_how_long(timeouts.in_progress));
  }
  return wait_until(state.since, timeouts.in_progress, phase);
}

bool should_resend_infeasible(const ResizeState& state, const kube::ResourceList& new_totals) {
  if (state.status != ResizeStatus::Infeasible) return false;
  for (const auto& [name, requested] : state.requested_totals) {
    const Quantity* now = kube::find_resource(new_totals, name);
    if (now && *now < requested) return true;
  }
  return false;
}

}  // namespace tailor::actuator
