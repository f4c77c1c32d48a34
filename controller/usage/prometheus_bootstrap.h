// The Prometheus history bootstrap: before the controller's first pass, range-queries the
// cAdvisor history (prometheus_history.h), page by page oldest first, and feeds the windows to
// the usage sink through the same check as the node agents' stream. Any failure — server down,
// an HTTP error, a timeout, an unreadable answer — ends the bootstrap with a log line; windows
// already fed stay, and the controller carries on without the rest.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "controller/usage/prometheus_history.h"
#include "controller/usage/usage_feed.h"

namespace tailor::controller::usage {

struct BootstrapResult {
  std::uint64_t pages = 0;   // pages whose two queries were answered
  std::uint64_t series = 0;  // container series read (CPU and memory)
  FeedCounts windows;        // fed to the sink, or dropped by window_problem
  std::string error;         // why the bootstrap stopped early ("" when it read everything)
};

// Reads the history before until_s (unix seconds; the controller's start, so that it does not
// overlap the live stream) and feeds it. cancelled (optional) is asked between pages, so that a
// shutdown does not wait for the whole history. Never throws.
BootstrapResult bootstrap_from_prometheus(const PrometheusHistoryOptions& options,
                                          std::int64_t until_s, const UsageSink& sink,
                                          const std::function<bool()>& cancelled = {});

}  // namespace tailor::controller::usage
