// Parsing JSON text into Boost.JSON values with numbers read as Go's encoding/json reads them
// (strconv.ParseFloat), so that every process judges a number as kube-apiserver does: correctly
// rounded (Boost.JSON 1.81's default parse is not), a zero mantissa ±0 whatever its exponent
// (Boost.JSON makes 0e400 NaN and refuses 0e9999999999), and a number beyond float64's range
// (1e999) an error (Boost.JSON would give Infinity). No NaN or Infinity ever comes out.
#pragma once

#include <boost/json/parse_options.hpp>
#include <boost/json/value.hpp>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tailor::kube::json {

// Sets ec on malformed text, text nested deeper than options.max_depth (error::too_deep) or a
// number out of float64's range (number_out_of_range()).
boost::json::value parse_value(std::string_view text, boost::system::error_code& ec,
                               const boost::json::parse_options& options = {});

// The error parse_value sets for a number strconv.ParseFloat refuses with ErrRange.
boost::system::error_code number_out_of_range();

// The first number of the text that parse_value refuses as out of range, as written; empty when
// there is none.
std::string out_of_range_number(std::string_view text);

// v as an integer the way kube-apiserver judges one: an int64 (Go's unstructured decoding keeps a
// number int64 when it fits), or a float64 with no fraction within ±(2^53 − 1), the range
// kube-openapi's type check counts as an integer (swag.IsFloat64AJSONInteger). A uint64 past
// int64 decodes as a float64 beyond that range, so it is none; nor is anything but a number.
std::optional<std::int64_t> integer_of(const boost::json::value& v);

// Calls fn(i) at each character of JSON text outside its strings; fn returns the last index it
// read (i when it read only that character), or npos to stop.
template <class Fn>
void scan_outside_strings(std::string_view text, Fn fn) {
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (i = fn(i); i == std::string_view::npos) {
      return;
    }
  }
}

}  // namespace tailor::kube::json
