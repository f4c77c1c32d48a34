// Usage arithmetic with no I/O: the rates between two cgroup reads of a container, and the
// summary of one report window (local aggregation, so the stream to the recommender carries one
// record per container and window instead of every sample).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "node-agent/usage/usage_cgroup.h"

namespace tailor::node::usage {

struct ContainerKey {
  std::string ns, pod, pod_uid, container, container_id{};
  auto operator<=>(const ContainerKey&) const = default;
};

// What the kubelet calls the working set: usage minus inactive file, at least 0.
std::int64_t working_set_bytes(const CgroupUsage& usage);

// What one sample says, from the read before it (`previous`) and this one.
struct UsagePoint {
  double cpu_cores = 0;                // Δcpu / Δt
  std::int64_t working_set_bytes = 0;  // usage − inactive_file, at least 0
  std::int64_t peak_bytes = 0;         // peak usage since the previous read
  std::int64_t oom_kills = 0;          // since the previous read
};

// nullopt for the first read of a container (no rate yet) or when time did not advance; counters
// that went backwards (a new container under the same cgroup) count from zero.
// v1's peak is reset by each read; v2's memory.peak never resets: it counts only when it rose since
// the previous read, else the usage now stands for the window's peak.
std::optional<UsagePoint> usage_point(const CgroupUsage& previous, std::int64_t previous_ms,
                                      const CgroupUsage& current, std::int64_t current_ms);

struct UsageWindow {
  ContainerKey container{};
  std::int64_t start_ms = 0, end_ms = 0;
  std::uint32_t samples = 0;
  double cpu_cores_mean = 0, cpu_cores_max = 0;
  std::int64_t working_set_max_bytes = 0, working_set_last_bytes = 0;
  std::int64_t peak_bytes = 0;
  std::uint32_t oom_kills = 0;
};

// Adds one point at `time_ms` to the window (the first point starts it).
void add_point(UsageWindow& window, const UsagePoint& point, std::int64_t time_ms);

}  // namespace tailor::node::usage
