#include "embedded/metrics/metrics_storage.h"

#include <algorithm>

namespace tailor::embedded {

std::optional<ResourceUsage> usage_between(const MetricsPoint& previous, const MetricsPoint& last) {
  const std::int64_t window_ms = last.at_ms - previous.at_ms;
  if (window_ms <= 0 || last.cumulative_cpu_ns < previous.cumulative_cpu_ns) return std::nullopt;
  // Cores are CPU ns per ns of time, Δcpu_ns / (Δms · 10^6); nanocores 10^9 times that.
  const __int128 cpu =
      static_cast<__int128>(last.cumulative_cpu_ns - previous.cumulative_cpu_ns) * 1000 / window_ms;
  return ResourceUsage{.nanocores = static_cast<std::int64_t>(cpu),
                       .memory_bytes = last.memory_bytes,
                       .at_ms = last.at_ms,
                       .window_ms = window_ms};
}

std::optional<MetricsPoint> follows(const MetricsPoint& last, std::int64_t last_start_ms,
                                    const MetricsPoint& next, std::int64_t next_start_ms) {
  if (next_start_ms != last_start_ms || next.cumulative_cpu_ns < last.cumulative_cpu_ns) {
    return std::nullopt;  // restarted: the old points count another run
  }
  if (next.at_ms > last.at_ms) return last;
  return std::nullopt;
}

namespace {

// The new points of one counter given its old ones (a repeated scrape keeps the old pair).
template <typename Points>
Points advance(const std::optional<Points>& old, const MetricsPoint& next, std::int64_t start_ms) {
  Points out{next, std::nullopt, start_ms};
  if (!old) return out;
  if (next.at_ms == old->last.at_ms && start_ms == old->start_ms) return *old;
  out.previous = follows(old->last, old->start_ms, next, start_ms);
  return out;
}

template <typename Map, typename Key>
auto find_optional(const Map& map, const Key& key) -> std::optional<typename Map::mapped_type> {
  const auto it = map.find(key);
  if (it == map.end()) return std::nullopt;
  return it->second;
}

}  // namespace

void MetricsStorage::store(const std::string& node, const NodeScrape& scrape) {
  std::lock_guard lock(mutex_);
  if (scrape.node) {
    nodes_[node] = advance<Points>(find_optional(nodes_, node), *scrape.node, 0);
  } else {
    nodes_.erase(node);
  }
  std::map<PodKey, PodPoints> fresh;
  for (const auto& c : scrape.containers) {
    const PodKey key{c.ns, c.pod};
    std::optional<Points> old;
    if (const auto it = pods_.find(key); it != pods_.end() && it->second.node == node) {
      old = find_optional(it->second.containers, c.container);
    }
    PodPoints& pod = fresh[key];
    pod.node = node;
    pod.containers[c.container] = advance<Points>(old, c.point, c.start_ms);
  }
  std::erase_if(pods_, [&node](const auto& entry) { return entry.second.node == node; });
  pods_.merge(fresh);
}

void MetricsStorage::forget(const std::string& node) {
  std::lock_guard lock(mutex_);
  nodes_.erase(node);
  std::erase_if(pods_, [&node](const auto& entry) { return entry.second.node == node; });
}

void MetricsStorage::retain(const std::set<std::string>& nodes) {
  std::lock_guard lock(mutex_);
  std::erase_if(nodes_, [&nodes](const auto& entry) { return !nodes.contains(entry.first); });
  std::erase_if(pods_, [&nodes](const auto& entry) { return !nodes.contains(entry.second.node); });
}

std::optional<ResourceUsage> MetricsStorage::node_usage(const std::string& node) const {
  std::lock_guard lock(mutex_);
  const auto it = nodes_.find(node);
  if (it == nodes_.end() || !it->second.previous) return std::nullopt;
  return usage_between(*it->second.previous, it->second.last);
}

std::optional<PodUsage> MetricsStorage::pod_usage(const std::string& ns,
                                                  const std::string& pod) const {
  std::lock_guard lock(mutex_);
  const auto it = pods_.find({ns, pod});
  if (it == pods_.end()) return std::nullopt;
  PodUsage out;
  for (const auto& [name, points] : it->second.containers) {
    if (!points.previous) return std::nullopt;  // all containers or none, as metrics-server
    const auto usage = usage_between(*points.previous, points.last);
    if (!usage) continue;  // metrics-server skips a container it cannot compute
    out.containers.push_back({name, *usage});
    if (out.at_ms == 0 || usage->at_ms < out.at_ms) {
      out.at_ms = usage->at_ms;
      out.window_ms = usage->window_ms;
    }
  }
  return out;
}

}  // namespace tailor::embedded
