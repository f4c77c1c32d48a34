#include "controller/usage/usage_report.h"

#include <cmath>

namespace tailor::controller::usage {
namespace {

// Beyond any machine Kubernetes runs on: 100,000 cores, 1 PiB.
constexpr double kMaxCores = 1e5;
constexpr double kMaxBytes = 1125899906842624.0;
constexpr std::int64_t kMaxFutureMs = 5 * 60 * 1000;

bool sane(double v, double max) { return std::isfinite(v) && v >= 0 && v <= max; }

}  // namespace

UsageWindow window_from_proto(const std::string& node,
                              const tailor::usage::v1::ContainerWindow& w) {
  return {.node = node,
          .ns = w.container().namespace_(),
          .pod = w.container().pod(),
          .pod_uid = w.container().pod_uid(),
          .container = w.container().container(),
          .start_unix_ms = w.start_unix_ms(),
          .end_unix_ms = w.end_unix_ms(),
          .samples = w.samples(),
          .cpu_cores_mean = w.cpu_cores_mean(),
          .cpu_cores_max = w.cpu_cores_max(),
          .memory_working_set_max_bytes = static_cast<double>(w.memory_working_set_max_bytes()),
          .memory_peak_bytes = static_cast<double>(w.memory_peak_bytes()),
          .oom_kills = w.oom_kills()};
}

std::optional<std::string> Reporter::node_of(const tailor::usage::v1::UsageReport& report) const {
  if (insecure) return report.node();
  if (!report.node().empty() && report.node() != *node) return std::nullopt;
  return node;
}

std::string window_problem(const UsageWindow& w, std::int64_t now_unix_ms) {
  if (w.ns.empty() || w.pod.empty() || w.container.empty()) {
    return "the window names no namespace, pod or container";
  }
  if (w.samples == 0) return "the window has no samples";
  if (w.start_unix_ms <= 0 || w.end_unix_ms < w.start_unix_ms) {
    return "the window's start and end are out of order";
  }
  if (w.end_unix_ms > now_unix_ms + kMaxFutureMs) return "the window ends in the future";
  if (!sane(w.cpu_cores_mean, kMaxCores) || !sane(w.cpu_cores_max, kMaxCores)) {
    return "CPU usage is negative, not a number or absurd";
  }
  if (!sane(w.memory_working_set_max_bytes, kMaxBytes) || !sane(w.memory_peak_bytes, kMaxBytes)) {
    return "memory usage is negative or absurd";
  }
  return "";
}

}  // namespace tailor::controller::usage
