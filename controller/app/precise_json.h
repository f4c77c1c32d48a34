// JSON parsed into Boost.JSON values with correctly rounded numbers. Boost.JSON 1.81 (Debian
// 12) parses some 17-digit doubles one unit in the last place off, so a checkpoint's
// totalWeight would not read back as written; simdjson's parser rounds correctly.
#pragma once

#include <boost/json.hpp>
#include <string_view>

namespace tailor::controller {

// Throws std::runtime_error naming simdjson's error for malformed JSON.
boost::json::value parse_precise(std::string_view json);

}  // namespace tailor::controller
