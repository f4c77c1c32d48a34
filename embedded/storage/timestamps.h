// RFC 3339 timestamps as metav1.Time writes them. embedded/ keeps its own small codec because
// controller/kube/client's exec_credential.cpp also defines tailor::kube::parse_rfc3339, so a
// binary linking the client and model/time.cpp's helpers gets a duplicate symbol.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "controller/kube/model/time.h"

namespace tailor::kube::embedded {

// "2026-01-02T03:04:05Z" (whole seconds, UTC).
std::string format_timestamp(TimePoint t);
// "2026-01-02T03:04:05Z", with optional fraction and "+hh:mm" / "-hh:mm" offset; nullopt
// for anything else.
std::optional<TimePoint> parse_timestamp(std::string_view text);

}  // namespace tailor::kube::embedded
