// With --metrics-source=metrics-api a container can be reported twice: by its node's agent (the
// usage stream) and by metrics-server (PodMetrics). Feeding both would give its histograms double
// weight, and PodMetrics do not name the node, so the stream remembers per container (namespace,
// pod, container — what PodMetrics name) the end of the agent's latest window, and the poller
// skips a reading the agent has covered or is about to cover. When the agent stops (node agent
// gone, pod recreated on a node without one) its windows stop advancing and metrics-api takes
// over. Both times come from the node's clock — the agent samples cgroups, metrics-server stamps
// a reading with the kubelet's measurement time — so they compare without clock skew.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>

#include "controller/usage/usage_server.h"

namespace tailor::controller::usage {

// An agent whose windows hold a single sample shows no interval: assume its default,
// --usage-report-interval 15s.
inline constexpr std::int64_t kMinReportIntervalMs = 15'000;
// A longer time between two windows of a container is the agent having been away, not its
// interval.
inline constexpr std::int64_t kMaxReportIntervalMs = 10 * 60'000;

// The node agent's latest window of one container.
struct AgentWindowSeen {
  std::int64_t end_unix_ms = 0;
  std::int64_t report_interval_ms = kMinReportIntervalMs;
};

// The agent's reporting interval, the larger of what the window shows — it holds the evenly
// spaced samples of one interval, from the first to the last: span * samples / (samples - 1) —
// and the time since the container's previous window ended (previous_end_unix_ms, 0 when none),
// which is the interval itself when the samples do not show it (one sample per window). Never
// less than kMinReportIntervalMs.
std::int64_t report_interval_ms(const UsageWindow& agent_window,
                                std::int64_t previous_end_unix_ms = 0);

// Whether a metrics.k8s.io reading ending at reading_end_unix_ms is the agent's to report: it
// ends at most two report intervals after the agent's latest window — one for the next window to
// be due, one for it to arrive. A later reading is fed: the agent has stopped streaming.
bool agent_covers(const AgentWindowSeen& seen, std::int64_t reading_end_unix_ms);

// "namespace/pod/container": the key both sources can form.
std::string container_key(const UsageWindow& window);

// Thread-safe: the usage stream records from gRPC threads while the poller asks. Containers are
// kept by a 64-bit hash of their key: 200,000 of them take a fifth of what string keys take; two
// colliding (odds ~1e-9 at that count) would only mean one's readings are skipped while the
// other's agent streams.
class StreamedContainers {
 public:
  void record(const UsageWindow& agent_window);
  bool covers(const UsageWindow& reading) const;
  // Forgets the containers whose agent window covers no reading ending at or after
  // unix_ms (their pods are gone, or metrics-api has long taken over). Returns how many.
  std::size_t forget_uncovered_since(std::int64_t unix_ms);
  std::size_t size() const;

 private:
  mutable std::mutex mutex_;
  std::unordered_map<std::uint64_t, AgentWindowSeen> latest_;
};

}  // namespace tailor::controller::usage
