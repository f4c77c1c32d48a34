// The two-document input of the embedded server's targets: a JSON array [first, second] (a patch's
// target and patch, a schema and an object), parsed as the server parses request bodies.
#pragma once

#include <boost/json.hpp>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>

#include "embedded/storage/json_text.h"

namespace tailor::fuzz {

inline std::optional<std::pair<boost::json::value, boost::json::value>> json_pair(
    const std::uint8_t* data, std::size_t size) {
  boost::system::error_code ec;
  boost::json::value v =
      embedded::parse_json_text(std::string_view(reinterpret_cast<const char*>(data), size), ec);
  if (ec || !v.is_array() || v.as_array().size() != 2) return std::nullopt;
  boost::json::array& a = v.as_array();
  return std::pair{std::move(a[0]), std::move(a[1])};
}

}  // namespace tailor::fuzz
