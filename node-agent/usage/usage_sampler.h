// The usage sampler: every `interval` it reads each container's cgroup (usage_cgroup.h), updates
// the Prometheus gauges, and adds the sample to the container's current window; every `window`
// it hands the finished windows to the sink (the stream to the recommender).
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "kube/observe/metrics.h"
#include "node-agent/usage/resource_metrics.h"
#include "node-agent/usage/usage_window.h"

namespace tailor::node::usage {

struct SampledContainer {
  ContainerKey key{};
  std::string cgroup_path{};  // below each hierarchy, e.g. /kubepods/pod<uid>/<id>
};

struct UsageSamplerOptions {
  cri::CgroupLayout cgroups{};
  std::chrono::milliseconds interval{std::chrono::seconds(5)};
  std::chrono::milliseconds window{std::chrono::seconds(60)};
  kube::metrics::Registry* registry = nullptr;  // nullptr: the process-wide registry
};

class UsageSampler {
 public:
  using ListContainers = std::function<std::vector<SampledContainer>()>;
  using Sink = std::function<void(std::vector<UsageWindow>)>;

  UsageSampler(ListContainers list, Sink sink, UsageSamplerOptions options);
  ~UsageSampler();  // stops the background loop

  // One round at `now_ms` (wall clock, ms since the epoch): read every container, update the
  // metrics and windows, and flush to the sink when the window has elapsed. Containers whose
  // cgroup cannot be read (gone between listing and reading) are skipped and their series removed.
  void sample(std::int64_t now_ms);
  // The finished and partial windows now, handed to the sink; windows restart.
  void flush();
  // The last read of each container and the node's totals, for the resource metrics endpoint
  // (resource_metrics.h); empty before the first round.
  std::vector<ContainerReading> container_readings() const;
  NodeReading node_reading() const;

  void start();  // samples every interval in a background thread
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tailor::node::usage
