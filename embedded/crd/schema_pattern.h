// A structural schema's `pattern`, read as kube-apiserver reads it: Go's regexp, whose syntax and
// guarantees RE2 shares (linear time in the text, no recursion over it). std::regex recursed once
// per character of the value, so one long string in a custom object overflowed the stack of the
// server (found by fuzz/crd_schema).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace tailor::embedded::crd {

// "" for a valid pattern; else Go's error, "error parsing regexp: missing closing ): `(`".
std::string pattern_error(const std::string& pattern);

// Whether text contains a match of pattern (unanchored, as Go's MatchString); nullopt for an
// invalid pattern (refused when the CRD was written).
std::optional<bool> pattern_matches(const std::string& pattern, std::string_view text);

}  // namespace tailor::embedded::crd
