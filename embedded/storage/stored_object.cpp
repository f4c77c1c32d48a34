#include "embedded/storage/stored_object.h"

#include <algorithm>
#include <charconv>

#include "embedded/storage/json_text.h"
#include "embedded/storage/object_meta.h"

namespace tailor::embedded {
namespace {

Labels labels_of(const bj::object& object) {
  Labels out;
  const bj::value* labels = find_path(object, "metadata.labels");
  if (!labels || !labels->is_object()) return out;
  for (const auto& [key, value] : labels->as_object()) {
    if (value.is_string()) out.emplace_back(std::string(key), std::string(value.as_string()));
  }
  std::sort(out.begin(), out.end());
  out.shrink_to_fit();
  return out;
}

std::uint64_t version_of(const bj::object& object) {
  std::string rv = meta_string(object, "resourceVersion");
  std::uint64_t v = 0;
  std::from_chars(rv.data(), rv.data() + rv.size(), v);
  return v;
}

}  // namespace

std::string selectable_field_value(const bj::object& object, std::string_view field) {
  const bj::value* v = find_path(object, field == "source" ? "source.component" : field);
  if (!v) return field == "spec.unschedulable" || field == "spec.hostNetwork" ? "false" : "";
  if (v->is_string()) return std::string(v->as_string());
  if (v->is_bool()) return v->as_bool() ? "true" : "false";
  if (v->is_null()) return "";
  return bj::serialize(*v);
}

StoredObject::StoredObject(const ResourceInfo& resource, const bj::object& object)
    : resource_(&resource),
      json_(bj::serialize(object)),
      ns_(meta_string(object, "namespace")),
      name_(meta_string(object, "name")),
      resource_version_(version_of(object)),
      labels_(labels_of(object)) {
  json_.shrink_to_fit();
  fields_.reserve(resource.selectable_fields.size());
  for (const std::string& f : resource.selectable_fields) {
    fields_.push_back(selectable_field_value(object, f));
  }
}

bj::object StoredObject::object() const {
  bj::value v = parse_json_text(json_);
  return std::move(v.as_object());
}

const std::string* StoredObject::label(std::string_view key) const {
  auto it = std::lower_bound(labels_.begin(), labels_.end(), key,
                             [](const auto& label, std::string_view k) { return label.first < k; });
  return it != labels_.end() && it->first == key ? &it->second : nullptr;
}

std::string StoredObject::field(std::string_view path) const {
  if (path == "metadata.name") return name_;
  if (path == "metadata.namespace") return ns_;
  const std::vector<std::string>& known = resource_->selectable_fields;
  auto it = std::find(known.begin(), known.end(), path);
  return it == known.end() ? "" : fields_[static_cast<std::size_t>(it - known.begin())];
}

}  // namespace tailor::embedded
