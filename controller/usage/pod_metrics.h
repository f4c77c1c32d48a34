// metrics.k8s.io (metrics-server's PodMetrics, v1beta1) as usage windows: one per container of
// each PodMetrics, over [timestamp - window, timestamp] (the interval the API documents). CPU
// usage is already a rate (cores), memory the working set; with one reading per window the mean
// and the maximum are that reading. Pure: the poller is in metrics_api_poller.h.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "controller/usage/usage_server.h"

namespace tailor::controller::usage {

struct PodMetricsWindows {
  std::vector<UsageWindow> windows;
  std::uint64_t skipped = 0;  // containers or pods whose fields could not be read
  std::string first_problem;  // why the first one was skipped
};

// Parses a PodMetricsList. Throws std::runtime_error when the body is not a JSON object with an
// "items" array; an unreadable item or container is skipped and counted.
PodMetricsWindows windows_from_pod_metrics(std::string_view list_json);

// metrics-server answers with the same reading until its next scrape: a poller keeps only the
// windows that end after the last one it fed for the same container. Containers absent from a
// list are forgotten (their pods are gone).
class FreshWindows {
 public:
  std::vector<UsageWindow> keep_fresh(std::vector<UsageWindow> windows);

 private:
  std::map<std::string, std::int64_t> last_end_ms_;  // "ns/pod/container"
};

}  // namespace tailor::controller::usage
