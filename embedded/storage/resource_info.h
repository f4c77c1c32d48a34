// What the server knows about a resource type: names for URLs, discovery and errors, scope, and
// the semantics storage applies (status subresource, generation tracking).
#pragma once

#include <boost/json/fwd.hpp>
#include <string>
#include <vector>

#include "embedded/storage/status_error.h"

namespace tailor::embedded {

struct ResourceInfo {
  std::string group{};     // "" for core
  std::string version{};   // "v1"
  std::string resource{};  // plural, "pods"
  std::string singular{};  // "pod"
  std::string kind{};      // "Pod"
  bool namespaced = true;
  std::vector<std::string> short_names{};
  std::vector<std::string> categories{};
  std::vector<std::string> subresources{};  // "status", "resize", "eviction", ...
  // Verbs served on the resource itself; empty: all of create, delete, get, list, patch, update,
  // watch (and deletecollection is never served).
  std::vector<std::string> verbs{};
  // metadata.generation is set to 1 on create and bumped when spec changes.
  bool tracks_generation = false;
  // Field selector labels beyond metadata.name / metadata.namespace, as dotted JSON paths.
  std::vector<std::string> selectable_fields{};
  // A second version of objects stored in storage_version (autoscaling/v1 HPAs are stored as
  // autoscaling/v2): the store only ever sees the stored version; requests and responses of this
  // one are converted at the API edge by these pure functions. Empty: stored as served.
  std::string storage_version{};
  boost::json::object (*to_storage)(const boost::json::object&) = nullptr;
  boost::json::object (*from_storage)(const boost::json::object&) = nullptr;

  bool has_subresource(const std::string& name) const;
  std::string api_version() const;  // "v1", "coordination.k8s.io/v1"
  std::string list_kind() const { return kind + "List"; }
  GroupResource group_resource() const { return {group, resource}; }
  bool operator==(const ResourceInfo&) const = default;
};

}  // namespace tailor::embedded
