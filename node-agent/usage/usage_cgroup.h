// Reads one container's usage counters from its cgroup: cgroup v1 (cpuacct.usage,
// memory.usage_in_bytes, memory.stat total_inactive_file, memory.max_usage_in_bytes — reset after
// each read so it holds the peak since the previous sample —, memory.oom_control oom_kill) or
// cgroup v2 (cpu.stat usage_usec, memory.current, memory.stat inactive_file, memory.peak,
// memory.events oom_kill).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "node-agent/cri/pod_cgroup.h"

namespace tailor::node::usage {

struct CgroupUsage {
  std::int64_t cpu_usage_ns = 0;  // cumulative
  std::int64_t memory_usage_bytes = 0;
  std::int64_t inactive_file_bytes = 0;
  // v1: since the previous read (reset); v2: memory.peak (nullopt on kernels without it).
  std::optional<std::int64_t> memory_peak_bytes;
  bool peak_since_previous_read = false;  // v1: the read reset it
  std::int64_t oom_kills = 0;             // cumulative
};

// Throws CgroupError naming the file when a counter cannot be read or parsed (e.g. the container
// is gone); a missing optional file (v2 memory.peak, oom_kill on old kernels) is not an error.
CgroupUsage read_cgroup_usage(const cri::CgroupLayout& layout, const std::string& path);

// The value of `key` in a "key value" per line file (memory.stat, cpu.stat, memory.events,
// memory.oom_control); nullopt when absent.
std::optional<std::int64_t> stat_value(const std::string& text, const std::string& key);

}  // namespace tailor::node::usage
