#include "node-agent/runtime/pod_runtime_status.h"

#include <boost/json.hpp>

#include "kube/model/encode.h"
#include "kube/model/time.h"

namespace tailor::node::runtime {
namespace {
namespace bj = boost::json;
using ApiState = tailor::kube::ContainerState;
using ApiStatus = tailor::kube::ContainerStatus;

std::string cri_time(std::int64_t ns) {
  if (ns <= 0) return {};
  return kube::format_rfc3339(kube::TimePoint(std::chrono::nanoseconds(ns)));
}

std::string terminated_reason(const cri::ContainerStatus& status) {
  if (!status.reason.empty()) return status.reason;
  return status.exit_code == 0 ? "Completed" : "Error";
}

kube::PodCondition condition(const kube::PodStatus& current, std::string type, bool value,
                             std::string reason, std::string message, const std::string& now) {
  kube::PodCondition out{.type = std::move(type), .status = value ? "True" : "False"};
  if (!value) {
    out.reason = std::move(reason);
    out.message = std::move(message);
  }
  const kube::PodCondition* before = kube::find_condition(current, out.type);
  out.last_transition_time =
      before && before->status == out.status && !before->last_transition_time.empty()
          ? before->last_transition_time
          : now;
  return out;
}

std::vector<kube::PodCondition> runtime_conditions(const kube::Pod& pod,
                                                   const kube::PodStatus& status,
                                                   const std::string& now) {
  std::string unready;
  for (const auto& container : status.container_statuses) {
    if (!container.ready) unready += (unready.empty() ? "" : " ") + container.name;
  }
  const bool ready = unready.empty() && !status.container_statuses.empty();
  std::string reason = "ContainersNotReady";
  std::string message = "containers with unready status: [" + unready + "]";
  if (status.phase == "Succeeded") {
    reason = "PodCompleted";
    message.clear();
  }
  return {
      condition(pod.status, "PodScheduled", true, "", "", now),
      condition(pod.status, "Initialized", true, "", "", now),
      condition(pod.status, "ContainersReady", ready, reason, message, now),
      condition(pod.status, "Ready", ready, reason, message, now),
  };
}

bj::value state_json(const ApiState& state) {
  bj::object out{{"waiting", nullptr}, {"running", nullptr}, {"terminated", nullptr}};
  if (state.waiting) {
    bj::object waiting{{"reason", state.waiting->reason}};
    if (!state.waiting->message.empty()) waiting["message"] = state.waiting->message;
    out["waiting"] = std::move(waiting);
  } else if (state.running) {
    out["running"] = bj::object{{"startedAt", state.running->started_at}};
  } else if (state.terminated) {
    const auto& t = *state.terminated;
    bj::object terminated{{"exitCode", t.exit_code},
                          {"reason", t.reason},
                          {"startedAt", t.started_at},
                          {"finishedAt", t.finished_at},
                          {"containerID", t.container_id}};
    if (!t.message.empty()) terminated["message"] = t.message;
    out["terminated"] = std::move(terminated);
  }
  return out;
}

bool has_state(const ApiState& state) { return state.waiting || state.running || state.terminated; }

// The resize status writer's fields of one container, as the pod was read.
void copy_resize_fields(bj::object& out, const ApiStatus& current) {
  if (!current.allocated_resources.empty()) {
    out["allocatedResources"] = bj::parse(kube::to_json(current.allocated_resources));
  }
  if (current.resources) out["resources"] = bj::parse(kube::to_json(*current.resources));
}

bj::object container_json(const ApiStatus& status) {
  bj::object out{{"name", status.name},
                 {"image", status.image},
                 {"imageID", status.image_id},
                 {"ready", status.ready},
                 {"started", status.started.value_or(false)},
                 {"restartCount", status.restart_count},
                 {"state", state_json(status.state)}};
  out["containerID"] =
      status.container_id.empty() ? bj::value(nullptr) : bj::value(status.container_id);
  out["lastState"] =
      has_state(status.last_state) ? state_json(status.last_state) : bj::value(bj::object{});
  return out;
}

}  // namespace

ApiState api_state(const cri::ContainerStatus& status) {
  ApiState out;
  switch (status.state) {
    case cri::ContainerState::Running:
      out.running = kube::ContainerStateRunning{.started_at = cri_time(status.started_at_ns)};
      break;
    case cri::ContainerState::Exited:
      out.terminated =
          kube::ContainerStateTerminated{.exit_code = status.exit_code,
                                         .reason = terminated_reason(status),
                                         .message = status.message,
                                         .started_at = cri_time(status.started_at_ns),
                                         .finished_at = cri_time(status.finished_at_ns),
                                         .container_id = "containerd://" + status.id};
      break;
    case cri::ContainerState::Created:
      out.waiting = kube::ContainerStateWaiting{.reason = "ContainerCreating"};
      break;
    case cri::ContainerState::Unknown:
      out.waiting = kube::ContainerStateWaiting{.reason = "ContainerStatusUnknown",
                                                .message = "The container could not be located"};
      break;
  }
  return out;
}

ApiStatus api_container_status(const ObservedContainer& observed, const std::string& runtime_name) {
  ApiStatus out;
  out.name = observed.name;
  out.image = observed.image;
  const auto& current = observed.current;
  if (current) {
    out.container_id = runtime_name + "://" + current->id;
    out.image_id = current->image_ref;
    out.restart_count = static_cast<std::int32_t>(current->attempt);
  }
  if (!observed.waiting_reason.empty()) {
    out.state.waiting = kube::ContainerStateWaiting{.reason = observed.waiting_reason,
                                                    .message = observed.waiting_message};
    // Waiting to be restarted: the exited attempt is the last state.
    if (current && current->state == cri::ContainerState::Exited) {
      out.last_state = api_state(*current);
    } else if (observed.previous) {
      out.last_state = api_state(*observed.previous);
    }
  } else if (current) {
    out.state = api_state(*current);
    if (observed.previous) out.last_state = api_state(*observed.previous);
  } else {
    out.state.waiting = kube::ContainerStateWaiting{.reason = "ContainerCreating"};
  }
  const bool running = out.state.running.has_value();
  out.started = running;
  out.ready = running && observed.probe_ready.value_or(true);
  return out;
}

std::string pod_phase(const kube::PodSpec& spec, const std::vector<ApiStatus>& statuses) {
  int waiting = 0, running = 0, stopped = 0, succeeded = 0, unknown = 0;
  for (const auto& container : spec.containers) {
    const ApiStatus* status = nullptr;
    for (const auto& s : statuses) {
      if (s.name == container.name) status = &s;
    }
    if (!status) {
      ++unknown;
    } else if (status->state.running) {
      ++running;
    } else if (status->state.terminated) {
      ++stopped;
      if (status->state.terminated->exit_code == 0) ++succeeded;
    } else if (status->state.waiting) {
      status->last_state.terminated ? ++stopped : ++waiting;
    } else {
      ++unknown;
    }
  }
  if (waiting > 0) return "Pending";
  if (running > 0 && unknown == 0) return "Running";
  if (running == 0 && stopped > 0 && unknown == 0) {
    const std::string policy = spec.restart_policy.empty() ? "Always" : spec.restart_policy;
    if (policy == "Always") return "Running";
    if (stopped == succeeded) return "Succeeded";
    if (policy == "Never") return "Failed";
    return "Running";
  }
  return "Pending";
}

kube::PodStatus runtime_status(const kube::Pod& pod, const std::vector<ObservedContainer>& observed,
                               const RuntimeStatusInput& input) {
  kube::PodStatus out;
  for (const auto& container : observed) {
    out.container_statuses.push_back(api_container_status(container, input.runtime_name));
  }
  out.phase = pod_phase(pod.spec, out.container_statuses);
  out.conditions = runtime_conditions(pod, out, input.now);
  out.host_ip = input.host_ip;
  out.pod_ip = input.pod_ip;
  out.start_time = input.start_time;
  return out;
}

std::string runtime_status_patch(const kube::PodStatus& status, const kube::PodStatus* current,
                                 const std::string& resource_version) {
  bj::array conditions;
  for (const auto& c : status.conditions) {
    bj::object condition{{"type", c.type},
                         {"status", c.status},
                         {"lastProbeTime", nullptr},
                         {"lastTransitionTime", c.last_transition_time}};
    condition["reason"] = c.reason.empty() ? bj::value(nullptr) : bj::value(c.reason);
    condition["message"] = c.message.empty() ? bj::value(nullptr) : bj::value(c.message);
    conditions.push_back(std::move(condition));
  }
  bj::array containers;
  for (const auto& c : status.container_statuses) {
    bj::object container = container_json(c);
    if (current) {
      if (const auto* before = kube::find_container_status(*current, c.name)) {
        copy_resize_fields(container, *before);
      }
    }
    containers.push_back(std::move(container));
  }
  bj::object out{{"phase", status.phase},
                 {"conditions", std::move(conditions)},
                 {"containerStatuses", std::move(containers)},
                 {"hostIP", status.host_ip},
                 {"hostIPs", bj::array{bj::object{{"ip", status.host_ip}}}},
                 {"startTime", status.start_time}};
  // No IP while the sandbox has none (its network failed or is not set up yet), as the kubelet.
  if (!status.pod_ip.empty()) {
    out["podIP"] = status.pod_ip;
    out["podIPs"] = bj::array{bj::object{{"ip", status.pod_ip}}};
  }
  bj::object patch{{"status", std::move(out)}};
  if (!resource_version.empty()) {
    patch["metadata"] = bj::object{{"resourceVersion", resource_version}};
  }
  return bj::serialize(patch);
}

}  // namespace tailor::node::runtime
