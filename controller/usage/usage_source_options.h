// tailor-controller's flags for the usage sources besides the node agents' stream: VPA's
// recommender flags where they exist (--storage, --prometheus-address, --history-length,
// --history-resolution, --prometheus-cadvisor-job-name, --prometheus-query-timeout,
// --container-*-label), and --metrics-source / --metrics-api-interval for metrics.k8s.io (VPA
// always reads metrics-server; Tailor reads it only when asked, for nodes without its agent; a
// container an agent streams is skipped by the poller, streamed_containers.h, not counted twice).
#pragma once

#include <string>

#include "controller/usage/prometheus_history.h"
#include "kube/observe/duration.h"
#include "kube/observe/options.h"

namespace tailor::controller::usage {

struct UsageSourceOptions {
  std::string storage = "checkpoint";  // "prometheus": also read the history at start
  PrometheusHistoryOptions prometheus{.address = "http://prometheus.monitoring.svc"};
  std::string metrics_source = "usage-stream";  // "metrics-api": also poll metrics.k8s.io
  kube::Duration metrics_api_interval = std::chrono::minutes(1);
};

void add_usage_source_options(kube::config::Schema& s, UsageSourceOptions& o);

}  // namespace tailor::controller::usage
