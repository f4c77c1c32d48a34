// Private to the model's decoders: typed reading of simdjson on-demand values with errors that
// carry the JSON path. Included only by decode_*.cpp (it pulls in simdjson).
//
// Paths cost nothing on the success path: a DecodeError is thrown where the value is bad and
// each enclosing object/array level adds its key or index while the exception unwinds.
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kube/model/decode.h"

namespace tailor::kube::json {

namespace od = simdjson::ondemand;

[[noreturn]] void fail(std::string detail);
// A simdjson error that is not a type mismatch: malformed, truncated, too deep, ...
[[noreturn]] void fail_syntax(simdjson::error_code error);
// The value is not of the expected kind ("a string", "an integer", ...).
[[noreturn]] void fail_type(od::value& v, simdjson::error_code error, std::string_view expected);

std::string_view type_name(od::json_type type);

// True when `error` came from asking a null value for another type; the null is consumed.
bool null_after(od::value& v, simdjson::error_code error);

void read(od::value& v, std::string& out);
void read(od::value& v, bool& out);
void read(od::value& v, std::int64_t& out);
void read(od::value& v, std::int32_t& out);
void read(od::value& v, Quantity& out);
void read(od::value& v, StringMap& out);
void read(od::value& v, ResourceList& out);

// Struct readers, one per model type (decode_meta.cpp, decode_pod.cpp, ...).
void read(od::value& v, OwnerReference& out);
void read(od::value& v, ObjectMeta& out);
void read(od::value& v, ListMeta& out);
void read(od::value& v, ObjectReference& out);
void read(od::value& v, PartialObjectMetadata& out);
void read(od::value& v, ResourceRequirements& out);
void read(od::value& v, ContainerResizePolicy& out);
void read(od::value& v, Container& out);
void read(od::value& v, PodSpec& out);
void read(od::value& v, ContainerStateWaiting& out);
void read(od::value& v, ContainerStateRunning& out);
void read(od::value& v, ContainerStateTerminated& out);
void read(od::value& v, ContainerState& out);
void read(od::value& v, ContainerStatus& out);
void read(od::value& v, PodCondition& out);
void read(od::value& v, PodStatus& out);
void read(od::value& v, Pod& out);
void read(od::value& v, NodeCondition& out);
void read(od::value& v, NodeSystemInfo& out);
void read(od::value& v, NodeSpec& out);
void read(od::value& v, NodeStatus& out);
void read(od::value& v, Node& out);
void read(od::value& v, EventSource& out);
void read(od::value& v, Event& out);
void read(od::value& v, LeaseSpec& out);
void read(od::value& v, Lease& out);
void read(od::value& v, StatusCause& out);
void read(od::value& v, StatusDetails& out);
void read(od::value& v, Status& out);

// Calls f(key, value) for each member; a null object reads as empty.
template <class F>
void for_each_field(od::value& v, F&& f) {
  od::object object;
  if (auto error = v.get_object().get(object)) {
    if (null_after(v, error)) return;
    fail_type(v, error, "an object");
  }
  for (auto member : object) {
    od::field field;
    if (auto error = std::move(member).get(field)) fail_syntax(error);
    std::string_view key;
    if (auto error = field.unescaped_key().get(key)) fail_syntax(error);
    try {
      f(key, field.value());
    } catch (DecodeError& e) {
      e.add_field(key);
      throw;
    }
  }
}

// The array behind v; false for null (read as empty).
inline bool get_array(od::value& v, od::array& array) {
  if (auto error = v.get_array().get(array)) {
    if (null_after(v, error)) return false;
    fail_type(v, error, "an array");
  }
  return true;
}

template <class F>
void for_each_in(od::array& array, F&& f) {
  std::size_t index = 0;
  for (auto element : array) {
    od::value value;
    if (auto error = std::move(element).get(value)) fail_syntax(error);
    try {
      f(value);
    } catch (DecodeError& e) {
      e.add_index(index);
      throw;
    }
    ++index;
  }
}

// Calls f(value) for each element; a null array reads as empty.
template <class F>
void for_each_element(od::value& v, F&& f) {
  od::array array;
  if (get_array(v, array)) for_each_in(array, f);
}

// Not counted first: count_elements walks the array's tokens a second time, which costs more
// (measured) than the few regrowths of these short vectors.
template <class T>
void read(od::value& v, std::vector<T>& out) {
  od::array array;
  if (!get_array(v, array)) return;
  for_each_in(array, [&](od::value& element) { read(element, out.emplace_back()); });
}

template <class T>
void read(od::value& v, std::optional<T>& out) {
  bool is_null = false;
  if (auto error = v.is_null().get(is_null)) fail_syntax(error);
  if (is_null) {
    out.reset();
    return;
  }
  read(v, out.emplace());
}

}  // namespace tailor::kube::json
