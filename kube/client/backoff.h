// Retry policy of the REST client: which answers are retried, and how long to wait before the
// next attempt (exponential backoff with jitter, or the server's Retry-After). Pure functions.
#pragma once

#include <chrono>
#include <optional>
#include <string_view>

namespace tailor::kube {

// 429 and 5xx are retried; every other status (409 Conflict, 4xx) is the caller's to handle.
bool is_retryable_status(int status);

// The delay before retry number `attempt` (0 for the first retry): base * 2^attempt capped at
// max, stretched by up to 50% by jitter (jitter in [0, 1), e.g. from a uniform random source)
// and capped at max again.
std::chrono::milliseconds backoff_delay(int attempt, std::chrono::milliseconds base,
                                        std::chrono::milliseconds max, double jitter);

// Retry-After as delta-seconds ("3"); nullopt for an absent or unparseable value (HTTP dates
// are not used by the API server).
std::optional<std::chrono::seconds> parse_retry_after(std::string_view value);

}  // namespace tailor::kube
