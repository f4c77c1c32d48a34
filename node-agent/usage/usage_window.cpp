#include "node-agent/usage/usage_window.h"

#include <algorithm>

namespace tailor::node::usage {

std::int64_t working_set_bytes(const CgroupUsage& usage) {
  return std::max<std::int64_t>(0, usage.memory_usage_bytes - usage.inactive_file_bytes);
}

std::optional<UsagePoint> usage_point(const CgroupUsage& previous, std::int64_t previous_ms,
                                      const CgroupUsage& current, std::int64_t current_ms) {
  if (current_ms <= previous_ms) return std::nullopt;
  UsagePoint out;
  const std::int64_t cpu_ns = current.cpu_usage_ns >= previous.cpu_usage_ns
                                  ? current.cpu_usage_ns - previous.cpu_usage_ns
                                  : current.cpu_usage_ns;
  out.cpu_cores = static_cast<double>(cpu_ns) / 1e6 / static_cast<double>(current_ms - previous_ms);
  out.working_set_bytes = working_set_bytes(current);
  const bool peak_rose = current.memory_peak_bytes &&
                         (current.peak_since_previous_read || !previous.memory_peak_bytes ||
                          *current.memory_peak_bytes != *previous.memory_peak_bytes);
  out.peak_bytes = std::max(current.memory_usage_bytes,
                            peak_rose ? *current.memory_peak_bytes : std::int64_t{0});
  out.oom_kills = current.oom_kills >= previous.oom_kills ? current.oom_kills - previous.oom_kills
                                                          : current.oom_kills;
  return out;
}

void add_point(UsageWindow& window, const UsagePoint& point, std::int64_t time_ms) {
  if (window.samples == 0) window.start_ms = time_ms;
  window.end_ms = time_ms;
  window.cpu_cores_mean =
      (window.cpu_cores_mean * window.samples + point.cpu_cores) / (window.samples + 1);
  ++window.samples;
  window.cpu_cores_max = std::max(window.cpu_cores_max, point.cpu_cores);
  window.working_set_max_bytes = std::max(window.working_set_max_bytes, point.working_set_bytes);
  window.working_set_last_bytes = point.working_set_bytes;
  window.peak_bytes = std::max(window.peak_bytes, point.peak_bytes);
  window.oom_kills += static_cast<std::uint32_t>(point.oom_kills);
}

}  // namespace tailor::node::usage
