// One stored revision of an object: its JSON text, serialised once and then shared read-only by
// the store, every list and every watcher, plus the few metadata values that lookups and selectors
// read (namespace, name, resourceVersion, labels, the resource's selectable fields). A JSON tree
// is parsed only when something needs one (writes, printers, control loops): holding trees cost
// ~4x the text, and copying them per list and per watcher dominated list and watch time.
#pragma once

#include <boost/json/fwd.hpp>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "embedded/storage/resource_info.h"

namespace tailor::embedded {

using Labels = std::vector<std::pair<std::string, std::string>>;  // sorted by key

class StoredObject {
 public:
  // `object` must carry its resourceVersion; `resource` must outlive this.
  StoredObject(const ResourceInfo& resource, const boost::json::object& object);

  const std::string& json() const { return json_; }
  boost::json::object object() const;            // a fresh tree parsed from json()
  const std::string& ns() const { return ns_; }  // "" when cluster-scoped
  const std::string& name() const { return name_; }
  std::uint64_t resource_version() const { return resource_version_; }
  const std::string* label(std::string_view key) const;  // null when absent
  // What a field selector compares for metadata.name, metadata.namespace or one of the
  // resource's selectable fields; "" for any other field.
  std::string field(std::string_view path) const;

 private:
  const ResourceInfo* resource_;
  std::string json_;
  std::string ns_;
  std::string name_;
  std::uint64_t resource_version_ = 0;
  Labels labels_;
  std::vector<std::string> fields_;  // by resource_->selectable_fields
};

using StoredPtr = std::shared_ptr<const StoredObject>;

// A field selector's value of `field` in object, as kube-apiserver's field sets render it
// ("true"/"false" for booleans, "" when absent; spec.unschedulable and spec.hostNetwork default
// to "false"; an event's "source" is its source.component).
std::string selectable_field_value(const boost::json::object& object, std::string_view field);

}  // namespace tailor::embedded
