// Regular expressions as Kubernetes reads them: a structural schema's `pattern` and CEL's
// `matches()` are both Go's regexp (RE2 syntax), whose guarantees RE2 shares (linear time in the
// text, no recursion over it). std::regex recursed once per character of the value, so one long
// string in a custom object overflowed the stack of the server.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tailor::embedded::cel {

// "" for a valid pattern; else Go's error, "error parsing regexp: missing closing ): `(`".
std::string regexp_error(const std::string& pattern);

// Whether text contains a match of pattern (unanchored, as Go's MatchString); nullopt for an
// invalid pattern (a schema refuses it when the CRD is written).
std::optional<bool> regexp_matches(const std::string& pattern, std::string_view text);

// The leftmost non-overlapping matches of pattern in text, at most limit of them (all when limit
// is negative), as Go's FindAllString; nullopt for an invalid pattern.
std::optional<std::vector<std::string>> regexp_find_all(const std::string& pattern,
                                                        std::string_view text, long limit);

}  // namespace tailor::embedded::cel
