// The kubelet's /metrics/resource (Prometheus text format) as metric points, as metrics-server
// decodes a scrape: each container's cumulative CPU, working set and start time, and the node's.
// A sample without a timestamp, or a container without both CPU and memory, is left out as
// metrics-server leaves it out. Pure.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace tailor::embedded {

struct MetricsPoint {
  std::int64_t at_ms = 0;              // when it was read (the sample's timestamp)
  std::int64_t cumulative_cpu_ns = 0;  // CPU time since the start
  std::int64_t memory_bytes = 0;       // working set
};

struct ContainerMetricsPoint {
  std::string ns, pod, container;
  std::int64_t start_ms = 0;  // container_start_time_seconds (0: not reported)
  MetricsPoint point{};
};

struct NodeScrape {
  std::optional<MetricsPoint> node{};
  std::vector<ContainerMetricsPoint> containers{};
};

// Throws std::invalid_argument naming the line for text that is not the exposition format.
NodeScrape decode_resource_metrics(std::string_view text);

}  // namespace tailor::embedded
