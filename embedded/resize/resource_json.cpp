#include "embedded/resize/resource_json.h"

#include <charconv>

#include "kube/model/decode.h"

namespace tailor::embedded {

const bj::value* member(const bj::value* object, std::string_view key) {
  if (!object || !object->is_object()) return nullptr;
  return object->as_object().if_contains(key);
}

namespace {

// apimachinery's ErrFormatWrong / ErrSuffix / ErrNumeric, by what our parser found wrong.
std::string apimachinery_error(const std::string& ours) {
  if (ours.find("unknown suffix") != std::string::npos) return "unable to parse quantity's suffix";
  if (ours.find("out of range") != std::string::npos || ours.find("too large") != std::string::npos)
    return "unable to parse numeric part of quantity";
  return "quantities must match the regular expression "
         "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
}

std::string_view trimmed(std::string_view text) {
  constexpr std::string_view kSpace = " \t\n\r\v\f";
  std::size_t first = text.find_first_not_of(kSpace);
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(kSpace) - first + 1);
}

// A JSON number as a client would have written it (0.5, not Boost's 5E-1).
std::string number_token(double value) {
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
  return ec == std::errc() ? std::string(buf, end) : bj::serialize(bj::value(value));
}

}  // namespace

std::optional<kube::Quantity> decode_quantity(const bj::value& value, std::string* error) {
  // Go's decoder hands UnmarshalJSON the raw token: a number parses, true or {} does not.
  std::string text = value.is_string()   ? std::string(trimmed(value.as_string()))
                     : value.is_double() ? number_token(value.as_double())
                                         : bj::serialize(value);
  std::string ours;
  auto q = kube::Quantity::try_parse(text, &ours);
  if (!q && error) *error = apimachinery_error(ours);
  return q;
}

kube::ResourceList resource_list(const bj::value* list, std::string_view path) {
  kube::ResourceList out;
  if (!list || list->is_null()) return out;
  if (!list->is_object()) throw bad_request(std::string(path) + ": expected an object");
  for (const auto& [name, value] : list->as_object()) {
    std::string error;
    auto q = decode_quantity(value, &error);
    if (!q) throw bad_request(std::string(path) + "." + std::string(name) + ": " + error);
    out.insert_or_assign(name, *q);
  }
  return out;
}

bool same_resource_lists(const bj::value* a, const bj::value* b) {
  return resource_list(a, "resources") == resource_list(b, "resources");
}

const bj::array& container_list(const bj::object& pod, std::string_view list) {
  static const bj::array kEmpty;
  const bj::value* spec = pod.if_contains("spec");
  const bj::value* containers = member(spec, list);
  return containers && containers->is_array() ? containers->as_array() : kEmpty;
}

bool is_sidecar(const bj::value& init_container) {
  const bj::value* policy = member(&init_container, "restartPolicy");
  return policy && policy->is_string() && policy->as_string() == "Always";
}

kube::Pod decode_pod(const bj::object& pod) {
  std::string text = bj::serialize(pod);
  kube::reserve_json_padding(text);
  try {
    return decode<kube::Pod>(kube::JsonInput(text));
  } catch (const std::exception& e) {
    throw bad_request(std::string("Pod in version \"v1\" cannot be handled as a Pod: ") + e.what());
  }
}

}  // namespace tailor::embedded
