// Go-style durations ("15s", "1m30s", "500ms", "1.5h"), as Kubernetes components take them in
// flags and config files (time.ParseDuration / Duration.String semantics).
#pragma once

#include <chrono>
#include <string>
#include <string_view>

namespace tailor::kube {

using Duration = std::chrono::nanoseconds;

// Parses a Go duration: an optional sign, then one or more decimal numbers each with a unit
// (ns, us, µs, μs, ms, s, m, h); "0" alone is zero. Throws std::invalid_argument naming the
// text on malformed input or overflow.
Duration parse_duration(std::string_view text);

// Formats like Go's Duration.String: "1h2m3.5s", "1.5s", "500ms", "1µs", "0s".
std::string format_duration(Duration d);

}  // namespace tailor::kube
