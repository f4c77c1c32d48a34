#include "embedded/storage/json_text.h"

#include <boost/json/error.hpp>

#include "kube/model/json_value.h"

namespace tailor::embedded {
namespace {

boost::json::parse_options kube_options() {
  boost::json::parse_options options;
  options.max_depth = kMaxJsonDepth;
  return options;
}

// The bracket that opens level kMaxJsonDepth + 1, the one encoding/json's scanner refuses.
char too_deep_bracket(std::string_view text) {
  std::size_t depth = 0;
  char bracket = '{';
  kube::json::scan_outside_strings(text, [&](std::size_t i) {
    char c = text[i];
    if (c == '}' || c == ']') --depth;
    if ((c == '{' || c == '[') && ++depth > kMaxJsonDepth) {
      bracket = c;
      return std::string_view::npos;
    }
    return i;
  });
  return bracket;
}

}  // namespace

boost::system::error_code number_out_of_range() { return kube::json::number_out_of_range(); }

boost::json::value parse_json_text(std::string_view text, boost::system::error_code& ec) {
  return kube::json::parse_value(text, ec, kube_options());
}

boost::json::value parse_json_text(std::string_view text) {
  boost::system::error_code ec;
  boost::json::value v = parse_json_text(text, ec);
  if (ec) throw boost::system::system_error(ec);
  return v;
}

std::string go_json_error(std::string_view text, const boost::system::error_code& ec) {
  if (ec == boost::json::error::too_deep) {
    return std::string("invalid character '") + too_deep_bracket(text) + "' exceeded max depth";
  }
  if (ec == number_out_of_range()) {
    return "json: cannot unmarshal number " + kube::json::out_of_range_number(text) +
           " into Go value of type float64";
  }
  return {};
}

}  // namespace tailor::embedded
