// The kubelet's resource metrics endpoint (/metrics/resource): each running container's cumulative
// CPU time, working set and start time, and the node's, as Prometheus text with the time of the
// read on every sample. metrics-server scrapes it to serve metrics.k8s.io; tailor-cluster does the
// same with the agents of `tailor cluster up` (embedded/metrics/). Pure: the agent's sampler
// supplies the readings (usage_sampler.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "node-agent/usage/usage_window.h"

namespace tailor::node::usage {

struct ContainerReading {
  ContainerKey key{};
  std::int64_t cpu_usage_ns = 0;  // cumulative since the container started
  std::int64_t working_set_bytes = 0;
  std::int64_t start_ms = 0;  // when the sampler first read this container (its cgroup)
  std::int64_t at_ms = 0;     // when this reading was taken
};

// The node as the sum of its containers: the agents of one machine share its root cgroup, so the
// machine's counters would be every node's. CPU accumulates each container's increase, so it
// never goes down when a container goes.
struct NodeReading {
  std::int64_t cpu_usage_ns = 0;
  std::int64_t working_set_bytes = 0;
  std::int64_t at_ms = 0;  // 0: nothing read yet (no node samples written)
};

inline constexpr const char* kResourceMetricsPath = "/metrics/resource";

// The endpoint's body: container_cpu_usage_seconds_total, container_memory_working_set_bytes,
// container_start_time_seconds, node_cpu_usage_seconds_total, node_memory_working_set_bytes and
// scrape_error, named and labelled (container, namespace, pod) as the kubelet does.
std::string resource_metrics_text(const NodeReading& node,
                                  const std::vector<ContainerReading>& containers);

}  // namespace tailor::node::usage
