// Every source of usage windows — the node agents' stream, the Prometheus history bootstrap, the
// metrics.k8s.io poller — hands its windows to the same sink through the same check
// (window_problem), so the models downstream cannot tell the sources apart.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "controller/usage/usage_server.h"

namespace tailor::controller::usage {

struct FeedCounts {
  std::uint64_t fed = 0;
  std::uint64_t dropped = 0;
  std::string first_problem;  // why the first dropped window was unusable ("" when none)
};

// Passes each usable window to sink in order and counts the unusable ones.
FeedCounts feed_windows(const std::vector<UsageWindow>& windows, const UsageSink& sink,
                        std::int64_t now_unix_ms);

// Removes the unusable windows (for a source that must not remember them, like the poller's
// freshness check) and counts them; `fed` stays 0.
FeedCounts drop_unusable(std::vector<UsageWindow>& windows, std::int64_t now_unix_ms);

std::int64_t unix_now_ms();

}  // namespace tailor::controller::usage
