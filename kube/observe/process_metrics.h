// The process_* metrics that Prometheus' Go client exposes for every Kubernetes component
// (CPU time, memory, file descriptors, start time), read from /proc at scrape time.
#pragma once

#include <prometheus/collectable.h>

#include <memory>
#include <optional>
#include <string_view>

namespace tailor::kube::metrics {

// The fields of /proc/<pid>/stat the metrics need.
struct ProcStat {
  double cpu_seconds = 0;  // utime + stime
  double start_seconds_after_boot = 0;
  double virtual_memory_bytes = 0;
  double resident_memory_bytes = 0;
};

// Parses the text of /proc/<pid>/stat (the command may contain spaces and parentheses).
// Throws std::invalid_argument when the text is not in that format.
ProcStat parse_proc_stat(std::string_view text, long clock_ticks_per_second, long page_size);

// Reads /proc/self on every Collect().
std::shared_ptr<prometheus::Collectable> make_process_collector();

}  // namespace tailor::kube::metrics
