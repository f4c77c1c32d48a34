// Kubernetes timestamps. The model keeps them as the RFC 3339 strings the API server sent
// (metav1.Time: seconds, metav1.MicroTime: microseconds); these pure helpers convert.
#pragma once

#include <chrono>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace tailor::kube {

using TimePoint = std::chrono::time_point<std::chrono::system_clock, std::chrono::nanoseconds>;

class TimeError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Parses "2024-05-01T12:30:00Z", "2024-05-01T12:30:00.123456Z", "2024-05-01T14:30:00+02:00".
// Throws TimeError naming the problem for anything else (Go's time.RFC3339 rules).
TimePoint parse_rfc3339(std::string_view text);
std::optional<TimePoint> try_parse_rfc3339(std::string_view text);

// metav1.Time form: whole seconds, UTC, "Z" (sub-second parts are truncated, as Go does).
std::string format_rfc3339(TimePoint t);
// metav1.MicroTime form: "2006-01-02T15:04:05.000000Z".
std::string format_rfc3339_micro(TimePoint t);

}  // namespace tailor::kube
