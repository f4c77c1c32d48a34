#include "controller/usage/usage_feed.h"

#include <chrono>
#include <vector>

namespace tailor::controller::usage {

FeedCounts feed_windows(const std::vector<UsageWindow>& windows, const UsageSink& sink,
                        std::int64_t now_unix_ms) {
  FeedCounts counts;
  for (const UsageWindow& w : windows) {
    std::string problem = window_problem(w, now_unix_ms);
    if (!problem.empty()) {
      if (counts.dropped++ == 0) counts.first_problem = std::move(problem);
      continue;
    }
    ++counts.fed;
    sink(w);
  }
  return counts;
}

FeedCounts drop_unusable(std::vector<UsageWindow>& windows, std::int64_t now_unix_ms) {
  FeedCounts counts;
  std::erase_if(windows, [&](const UsageWindow& w) {
    std::string problem = window_problem(w, now_unix_ms);
    if (problem.empty()) return false;
    if (counts.dropped++ == 0) counts.first_problem = std::move(problem);
    return true;
  });
  return counts;
}

std::int64_t unix_now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace tailor::controller::usage
