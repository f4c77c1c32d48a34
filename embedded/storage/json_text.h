// Parsing JSON text as kube-apiserver does: nesting up to 10,000 levels (encoding/json's
// maxNestingDepth, which sigs.k8s.io/json and the serializers' kind sniffing share), where
// Boost.JSON stops at 32 by default. Every parse of a request body or of stored text goes
// through here, so that an object accepted once can be read back.
#pragma once

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>
#include <cstddef>
#include <string>
#include <string_view>

namespace tailor::embedded {

inline constexpr std::size_t kMaxJsonDepth = 10000;

// Sets ec on malformed text or text nested deeper than kMaxJsonDepth (error::too_deep).
boost::json::value parse_json_text(std::string_view text, boost::system::error_code& ec);
// Throws boost::system::system_error as boost::json::parse does.
boost::json::value parse_json_text(std::string_view text);

// The message encoding/json gives for a parse error that has one of its own (nesting too deep:
// "invalid character '{' exceeded max depth"); empty for the others.
std::string go_json_error(std::string_view text, const boost::system::error_code& ec);

}  // namespace tailor::embedded
