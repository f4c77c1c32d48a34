// Parsing JSON text as kube-apiserver does: nesting up to 10,000 levels (encoding/json's
// maxNestingDepth, which sigs.k8s.io/json and the serializers' kind sniffing share), where
// Boost.JSON stops at 32 by default, and numbers as strconv.ParseFloat reads them
// (kube/model/json_value.h: 0e400 is 0, 1e999 is refused, never NaN or Infinity). Every parse of a
// request body or of stored text goes through here, so that an object accepted once can be read
// back.
#pragma once

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>
#include <cstddef>
#include <string>
#include <string_view>

namespace tailor::embedded {

inline constexpr std::size_t kMaxJsonDepth = 10000;

// Sets ec on malformed text, text nested deeper than kMaxJsonDepth (error::too_deep) or a number
// out of float64's range (number_out_of_range()).
boost::json::value parse_json_text(std::string_view text, boost::system::error_code& ec);
// Throws boost::system::system_error as boost::json::parse does.
boost::json::value parse_json_text(std::string_view text);

// The error parse_json_text sets for a number strconv.ParseFloat refuses with ErrRange
// (kube::json::number_out_of_range()).
boost::system::error_code number_out_of_range();

// The message encoding/json gives for a parse error that has one of its own (nesting too deep:
// "invalid character '{' exceeded max depth"; a number out of range: "json: cannot unmarshal
// number 1e999 into Go value of type float64"); empty for the others.
std::string go_json_error(std::string_view text, const boost::system::error_code& ec);

}  // namespace tailor::embedded
