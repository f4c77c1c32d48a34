// What metrics-server keeps between scrapes: the last two points of every container and node, and
// the usage between them (CPU: the cumulative time's increase over the time between the points;
// memory: the last working set; timestamp: the last point's; window: the time between them). A
// container whose counter restarted, or that has one point only, has no usage yet; a pod has
// usage only when every container of its last scrape has. Thread-safe: the scraper stores while
// the API reads.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "embedded/metrics/resource_metrics_decode.h"

namespace tailor::embedded {

struct ResourceUsage {
  std::int64_t nanocores = 0;
  std::int64_t memory_bytes = 0;
  std::int64_t at_ms = 0;
  std::int64_t window_ms = 0;
};

// The usage between two points of one counter; nullopt when `last` is not after `previous` or
// its CPU went back (a restart: metrics-server skips such a point).
std::optional<ResourceUsage> usage_between(const MetricsPoint& previous, const MetricsPoint& last);

struct ContainerUsage {
  std::string name;
  ResourceUsage usage;
};

struct PodUsage {
  std::int64_t at_ms = 0;  // of the container read earliest, with its window (metrics-server)
  std::int64_t window_ms = 0;
  std::vector<ContainerUsage> containers;  // by name
};

class MetricsStorage {
 public:
  // One node's scrape replaces what that node reported before, each container's and the node's
  // previous point kept when the new one follows it (newer, same start, counter not gone back).
  void store(const std::string& node, const NodeScrape& scrape);
  // A node that could not be scraped reports nothing until it can again.
  void forget(const std::string& node);
  // Forgets every node not in `nodes` (deleted, or no longer naming a kubelet endpoint).
  void retain(const std::set<std::string>& nodes);

  std::optional<ResourceUsage> node_usage(const std::string& node) const;
  std::optional<PodUsage> pod_usage(const std::string& ns, const std::string& pod) const;

 private:
  struct Points {
    MetricsPoint last;
    std::optional<MetricsPoint> previous;
    std::int64_t start_ms = 0;
  };
  using PodKey = std::pair<std::string, std::string>;  // namespace, name
  struct PodPoints {
    std::string node;
    std::map<std::string, Points> containers;
  };

  mutable std::mutex mutex_;
  std::map<std::string, Points> nodes_;
  std::map<PodKey, PodPoints> pods_;
};

// What becomes the previous point when `next` is read after `last`: `last` when next follows it
// (newer, the same start, the counter not gone back), else none (a restart).
std::optional<MetricsPoint> follows(const MetricsPoint& last, std::int64_t last_start_ms,
                                    const MetricsPoint& next, std::int64_t next_start_ms);

}  // namespace tailor::embedded
