// Usage from metrics.k8s.io instead of (or besides) the node agents: every interval (VPA's
// recommender fetches every minute) lists PodMetrics across namespaces and feeds each
// container's fresh window to the usage sink through the same check as the node agents' stream.
// An API that is not served (404: no metrics-server) is logged once and polled again later, so
// a metrics-server installed afterwards is picked up; other failures are logged each time.
// A reading of a container that a node agent streams is skipped (streamed_containers.h), so that
// the container is not counted twice. What becomes of the readings is counted in
// tailor_controller_metrics_api_readings_total{outcome} (metrics_api_readings.h).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include "controller/usage/metrics_api_readings.h"
#include "controller/usage/pod_metrics.h"
#include "controller/usage/streamed_containers.h"
#include "controller/usage/usage_feed.h"
#include "kube/client/rest_client.h"

namespace tailor::controller::usage {

struct MetricsApiPollerOptions {
  std::chrono::nanoseconds interval = std::chrono::minutes(1);
  // The containers the node agents stream, as the usage server records them (nullptr: none).
  StreamedContainers* streamed = nullptr;
  // Where tailor_controller_metrics_api_readings_total is counted (nullptr: the process-wide
  // registry, served on /metrics).
  kube::metrics::Registry* metrics = nullptr;
};

struct PollStats {
  std::uint64_t polls = 0;       // lists answered
  std::uint64_t failures = 0;    // lists that failed (404 included)
  std::uint64_t fed = 0;         // windows fed to the sink
  std::uint64_t dropped = 0;     // refused by window_problem
  std::uint64_t stale = 0;       // the same reading as the previous poll
  std::uint64_t streamed = 0;    // fresh, but a node agent streams the container
  std::uint64_t unreadable = 0;  // PodMetrics or containers that could not be parsed
};

// PodMetrics of all namespaces: /apis/metrics.k8s.io/v1beta1/pods.
extern const kube::ResourceType kPodMetrics;

class MetricsApiPoller {
 public:
  MetricsApiPoller(kube::RestClient& client, MetricsApiPollerOptions options, UsageSink sink);
  ~MetricsApiPoller();
  MetricsApiPoller(const MetricsApiPoller&) = delete;
  MetricsApiPoller& operator=(const MetricsApiPoller&) = delete;

  void start();  // polls now, then every interval, on its own thread
  void stop();
  // One poll on the caller's thread (what the thread does each interval). Never throws.
  void poll_once();
  PollStats stats() const;

 private:
  // Removes the readings of containers a node agent streams; returns how many.
  std::size_t skip_streamed(std::vector<UsageWindow>& fresh, std::int64_t now);

  kube::RestClient& client_;
  MetricsApiPollerOptions options_;
  MetricsApiReadings readings_;
  UsageSink sink_;
  FreshWindows fresh_;
  bool told_not_served_ = false;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  PollStats stats_;
  std::thread thread_;
};

}  // namespace tailor::controller::usage
