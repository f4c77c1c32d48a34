#include "embedded/resize/resource_json.h"

#include "kube/model/decode.h"

namespace tailor::embedded {

const bj::value* member(const bj::value* object, std::string_view key) {
  if (!object || !object->is_object()) return nullptr;
  return object->as_object().if_contains(key);
}

kube::ResourceList resource_list(const bj::value* list, std::string_view path) {
  kube::ResourceList out;
  if (!list || list->is_null()) return out;
  if (!list->is_object()) throw bad_request(std::string(path) + ": expected an object");
  for (const auto& [name, value] : list->as_object()) {
    std::string text;
    if (value.is_string()) {
      text = value.as_string();
    } else if (value.is_number()) {
      text = bj::serialize(value);
    } else {
      throw bad_request(std::string(path) + "." + std::string(name) +
                        ": quantities must be strings or numbers");
    }
    std::string error;
    auto q = kube::Quantity::try_parse(text, &error);
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

FieldCause forbidden(std::string field, const std::string& why) {
  return {"FieldValueForbidden", "Forbidden: " + why, std::move(field)};
}

FieldCause invalid_value(std::string field, const std::string& value, const std::string& why) {
  return {"FieldValueInvalid", "Invalid value: \"" + value + "\": " + why, std::move(field)};
}

}  // namespace tailor::embedded
