// The pod row of `kubectl get pods`, following kube-apiserver's pod printer.
#include "embedded/api/pod_printer.h"

#include "embedded/storage/object_meta.h"
#include "kube/model/time.h"

namespace tailor::embedded {
namespace {

const bj::array& array_at(const bj::object& o, std::string_view path) {
  static const bj::array kEmpty;
  const bj::value* v = find_path(o, path);
  return v && v->is_array() ? v->as_array() : kEmpty;
}

std::int64_t int_at(const bj::value& o, std::string_view path) {
  if (!o.is_object()) return 0;
  const bj::value* v = find_path(o.as_object(), path);
  return v && v->is_number() ? v->to_number<std::int64_t>() : 0;
}

bool has(const bj::value& o, std::string_view path) {
  return o.is_object() && find_path(o.as_object(), path) != nullptr;
}

// "Signal:9" / "ExitCode:1" when a terminated state has no reason.
std::string terminated_reason(const bj::value& status, std::string_view prefix) {
  std::string reason = string_at(status, "state.terminated.reason");
  if (!reason.empty()) return std::string(prefix) + reason;
  std::int64_t signal = int_at(status, "state.terminated.signal");
  if (signal != 0) return std::string(prefix) + "Signal:" + std::to_string(signal);
  return std::string(prefix) +
         "ExitCode:" + std::to_string(int_at(status, "state.terminated.exitCode"));
}

// Init containers: the reason while they run, "" once all are done.
std::string init_reason(const bj::object& pod) {
  const bj::array& statuses = array_at(pod, "status.initContainerStatuses");
  std::size_t total = array_at(pod, "spec.initContainers").size();
  for (std::size_t i = 0; i < statuses.size(); ++i) {
    const bj::value& s = statuses[i];
    if (has(s, "state.terminated") && int_at(s, "state.terminated.exitCode") == 0) continue;
    if (has(s, "state.terminated")) return terminated_reason(s, "Init:");
    std::string waiting = string_at(s, "state.waiting.reason");
    if (!waiting.empty() && waiting != "PodInitializing") return "Init:" + waiting;
    if (has(s, "state.running") && s.as_object().contains("started") && s.at("started").is_bool() &&
        s.at("started").as_bool()) {
      continue;  // a started sidecar
    }
    return "Init:" + std::to_string(i) + "/" + std::to_string(total);
  }
  return "";
}

}  // namespace

PodRow pod_row(const bj::object& pod, kube::TimePoint now) {
  PodRow row;
  const bj::array& statuses = array_at(pod, "status.containerStatuses");
  std::size_t total = array_at(pod, "spec.containers").size();
  std::string reason = string_at(pod, "status.phase");
  if (std::string r = string_at(pod, "status.reason"); !r.empty()) reason = r;
  std::string init = init_reason(pod);
  int ready = 0;
  std::optional<kube::TimePoint> last_restart;
  bool running = false;
  for (const bj::value& s : statuses) {
    row.restarts += int_at(s, "restartCount");
    std::string finished = string_at(s, "lastState.terminated.finishedAt");
    if (auto t = kube::try_parse_rfc3339(finished); t && (!last_restart || *t > *last_restart)) {
      last_restart = *t;
    }
  }
  if (!init.empty()) {
    reason = init;
  } else {
    for (auto it = statuses.rbegin(); it != statuses.rend(); ++it) {
      const bj::value& s = *it;
      std::string waiting = string_at(s, "state.waiting.reason");
      if (!waiting.empty()) {
        reason = waiting;
      } else if (has(s, "state.terminated")) {
        reason = terminated_reason(s, "");
      } else if (has(s, "state.running") && s.is_object() && s.as_object().contains("ready") &&
                 s.at("ready").is_bool() && s.at("ready").as_bool()) {
        running = true;
        ++ready;
      }
    }
    if (reason == "Completed" && running) reason = "Running";
  }
  if (!meta_string(pod, "deletionTimestamp").empty()) {
    reason = string_at(pod, "status.reason") == "NodeLost" ? "Unknown" : "Terminating";
  }
  row.status = reason;
  row.ready = std::to_string(ready) + "/" + std::to_string(total);
  if (last_restart) {
    row.restarts_text =
        std::to_string(row.restarts) + " (" + human_duration(now - *last_restart) + " ago)";
  }
  return row;
}

std::string pod_status_reason(const bj::object& pod) {
  return pod_row(pod, kube::TimePoint(std::chrono::system_clock::now())).status;
}

}  // namespace tailor::embedded
