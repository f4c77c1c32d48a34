#include "kube/client/backoff.h"

#include <algorithm>
#include <charconv>

namespace tailor::kube {

bool is_retryable_status(int status) { return status == 429 || (status >= 500 && status < 600); }

std::chrono::milliseconds backoff_delay(int attempt, std::chrono::milliseconds base,
                                        std::chrono::milliseconds max, double jitter) {
  double delay = static_cast<double>(base.count());
  for (int i = 0; i < attempt && delay < static_cast<double>(max.count()); ++i) delay *= 2;
  delay = std::min(delay, static_cast<double>(max.count()));
  delay *= 1.0 + 0.5 * std::clamp(jitter, 0.0, 1.0);
  delay = std::min(delay, static_cast<double>(max.count()));
  return std::chrono::milliseconds(static_cast<std::int64_t>(delay));
}

std::optional<std::chrono::seconds> parse_retry_after(std::string_view value) {
  while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  while (!value.empty() && value.back() == ' ') value.remove_suffix(1);
  if (value.empty()) return std::nullopt;
  std::int64_t seconds = 0;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), seconds);
  if (ec != std::errc() || end != value.data() + value.size() || seconds < 0) return std::nullopt;
  // A misbehaving server must not park the client for hours.
  return std::chrono::seconds(std::min<std::int64_t>(seconds, 600));
}

}  // namespace tailor::kube
