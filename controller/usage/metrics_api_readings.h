// tailor_controller_metrics_api_readings_total{outcome}: what became of the container readings
// the metrics.k8s.io poller listed — fed to the models, stale (the reading the previous poll
// already fed) or streamed (skipped: a node agent streams the container).
#pragma once

#include <cstdint>

#include "kube/observe/metrics.h"

namespace tailor::controller::usage {

class MetricsApiReadings {
 public:
  // The three series exist (at zero) from construction, so rate() sees them before a poll.
  explicit MetricsApiReadings(kube::metrics::Registry& registry);
  void add(std::uint64_t fed, std::uint64_t stale, std::uint64_t streamed);

 private:
  prometheus::Counter* fed_;
  prometheus::Counter* stale_;
  prometheus::Counter* streamed_;
};

}  // namespace tailor::controller::usage
