#include "controller/usage/streamed_containers.h"

#include <algorithm>
#include <functional>
#include <string_view>

namespace tailor::controller::usage {
namespace {

void append_container_key(std::string& out, const UsageWindow& w) {
  out.append(w.ns).append(1, '/').append(w.pod).append(1, '/').append(w.container);
}

// Built in a reused buffer: record and covers run for every window and reading.
std::uint64_t container_hash(const UsageWindow& w) {
  thread_local std::string key;
  key.clear();
  append_container_key(key, w);
  return std::hash<std::string_view>{}(key);
}

}  // namespace

std::int64_t report_interval_ms(const UsageWindow& w, std::int64_t previous_end_unix_ms) {
  std::int64_t interval = kMinReportIntervalMs;
  if (w.samples >= 2 && w.end_unix_ms > w.start_unix_ms) {
    interval = std::max(interval, (w.end_unix_ms - w.start_unix_ms) * w.samples / (w.samples - 1));
  }
  const std::int64_t since_previous = w.end_unix_ms - previous_end_unix_ms;
  if (previous_end_unix_ms > 0 && since_previous <= kMaxReportIntervalMs) {
    interval = std::max(interval, since_previous);
  }
  return interval;
}

bool agent_covers(const AgentWindowSeen& seen, std::int64_t reading_end_unix_ms) {
  return reading_end_unix_ms <= seen.end_unix_ms + 2 * seen.report_interval_ms;
}

std::string container_key(const UsageWindow& w) {
  std::string key;
  append_container_key(key, w);
  return key;
}

void StreamedContainers::record(const UsageWindow& w) {
  const std::uint64_t key = container_hash(w);
  std::lock_guard lock(mutex_);
  auto [it, inserted] = latest_.try_emplace(key);
  AgentWindowSeen& seen = it->second;
  if (inserted) {
    seen = {.end_unix_ms = w.end_unix_ms, .report_interval_ms = report_interval_ms(w)};
  } else if (w.end_unix_ms > seen.end_unix_ms) {
    seen = {.end_unix_ms = w.end_unix_ms,
            .report_interval_ms = report_interval_ms(w, seen.end_unix_ms)};
  }
  // An earlier window than the latest (a partial one flushed late) does not move the end back.
}

bool StreamedContainers::covers(const UsageWindow& reading) const {
  const std::uint64_t key = container_hash(reading);
  std::lock_guard lock(mutex_);
  auto it = latest_.find(key);
  return it != latest_.end() && agent_covers(it->second, reading.end_unix_ms);
}

std::size_t StreamedContainers::forget_uncovered_since(std::int64_t unix_ms) {
  std::lock_guard lock(mutex_);
  return std::erase_if(latest_,
                       [&](const auto& entry) { return !agent_covers(entry.second, unix_ms); });
}

std::size_t StreamedContainers::size() const {
  std::lock_guard lock(mutex_);
  return latest_.size();
}

}  // namespace tailor::controller::usage
