#include "embedded/storage/json_text.h"

#include <boost/json/error.hpp>
#include <boost/json/parser.hpp>

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
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (++depth > kMaxJsonDepth) return c;
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  return '{';
}

}  // namespace

boost::json::value parse_json_text(std::string_view text, boost::system::error_code& ec) {
  return boost::json::parse(text, ec, {}, kube_options());
}

boost::json::value parse_json_text(std::string_view text) {
  boost::system::error_code ec;
  boost::json::value v = parse_json_text(text, ec);
  if (ec) throw boost::system::system_error(ec);
  return v;
}

std::string go_json_error(std::string_view text, const boost::system::error_code& ec) {
  if (ec != boost::json::error::too_deep) return {};
  return std::string("invalid character '") + too_deep_bracket(text) + "' exceeded max depth";
}

}  // namespace tailor::embedded
