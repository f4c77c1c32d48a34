// Reading and writing metadata fields of JSON objects (private to embedded/; pulls Boost.JSON).
#pragma once

#include <boost/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tailor::embedded {

namespace bj = boost::json;

// metadata, created when absent (also when it is not an object).
bj::object& metadata(bj::object& object);
// A string field of metadata; "" when absent or not a string.
std::string meta_string(const bj::object& object, std::string_view key);
// The value at a dotted path ("spec.nodeName"); nullptr when absent.
const bj::value* find_path(const bj::object& object, std::string_view dotted_path);
// An object field (one key); nullptr when absent or not an object.
const bj::object* object_field(const bj::object& object, std::string_view key);
// The string at a dotted path; "" when absent, not a string, or (value form) not an object.
std::string string_at(const bj::object& object, std::string_view dotted_path);
std::string string_at(const bj::value& value, std::string_view dotted_path);
// The string items of an array field (one key, taken whole: dots and all); non-strings skipped,
// empty when absent or not an array.
std::vector<std::string> strings_of(const bj::object& object, std::string_view key);
// The address of the node's first status.addresses entry of this type ("InternalIP"); nullopt when
// it has none.
std::optional<std::string> node_address(const bj::object& node, std::string_view type);
// A random RFC 4122 version 4 UUID.
std::string new_uid();
// Five characters as Kubernetes appends to generateName.
std::string random_name_suffix();

}  // namespace tailor::embedded
