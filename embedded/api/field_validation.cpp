#include "embedded/api/field_validation.h"

#include <algorithm>
#include <map>

#include "embedded/storage/object_meta.h"
#include "embedded/storage/status_error.h"

namespace tailor::kube::embedded {
namespace {

using Names = std::vector<std::string_view>;

const Names& object_meta_fields() {
  static const Names kFields = {"name",
                                "generateName",
                                "namespace",
                                "selfLink",
                                "uid",
                                "resourceVersion",
                                "generation",
                                "creationTimestamp",
                                "deletionTimestamp",
                                "deletionGracePeriodSeconds",
                                "labels",
                                "annotations",
                                "ownerReferences",
                                "finalizers",
                                "managedFields"};
  return kFields;
}

// Top-level fields per resource (besides apiVersion, kind, metadata).
const Names* top_level_fields(const std::string& resource) {
  static const std::map<std::string, Names> kFields = {
      {"pods", {"spec", "status"}},
      {"nodes", {"spec", "status"}},
      {"namespaces", {"spec", "status"}},
      {"configmaps", {"data", "binaryData", "immutable"}},
      {"leases", {"spec"}},
      {"events",
       {"involvedObject", "reason", "message", "source", "firstTimestamp", "lastTimestamp", "count",
        "type", "eventTime", "series", "action", "related", "reportingComponent",
        "reportingInstance"}},
  };
  auto it = kFields.find(resource);
  return it == kFields.end() ? nullptr : &it->second;
}

bool known(const Names& names, std::string_view key) {
  return std::find(names.begin(), names.end(), key) != names.end();
}

}  // namespace

FieldValidation parse_field_validation(const std::string& value) {
  if (value.empty() || value == "Warn") return FieldValidation::Warn;
  if (value == "Strict") return FieldValidation::Strict;
  if (value == "Ignore") return FieldValidation::Ignore;
  throw bad_request("fieldValidation must be one of \"Ignore\", \"Warn\", or \"Strict\", got \"" +
                    value + "\"");
}

std::vector<std::string> unknown_fields(const ResourceInfo& r, const bj::object& object) {
  std::vector<std::string> unknown;
  const Names* top = top_level_fields(r.resource);
  if (!top) return unknown;
  for (const auto& [key, value] : object) {
    std::string_view k = key;
    if (k == "apiVersion" || k == "kind" || k == "metadata") continue;
    if (!known(*top, k)) unknown.emplace_back(k);
  }
  if (const bj::value* meta = object.if_contains("metadata"); meta && meta->is_object()) {
    for (const auto& [key, value] : meta->as_object()) {
      if (!known(object_meta_fields(), key)) unknown.push_back("metadata." + std::string(key));
    }
  }
  return unknown;
}

std::vector<std::string> check_unknown_fields(const ResourceInfo& r, const bj::object& object,
                                              FieldValidation mode) {
  if (mode == FieldValidation::Ignore) return {};
  return report_unknown_fields(r, unknown_fields(r, object), mode);
}

std::vector<std::string> report_unknown_fields(const ResourceInfo& r,
                                               const std::vector<std::string>& unknown,
                                               FieldValidation mode) {
  if (mode == FieldValidation::Ignore) return {};
  std::vector<std::string> messages;
  for (const std::string& f : unknown) messages.push_back("unknown field \"" + f + "\"");
  if (mode == FieldValidation::Strict && !messages.empty()) {
    std::string all;
    for (const std::string& m : messages) all += (all.empty() ? "" : ", ") + m;
    throw bad_request(r.kind + " in version \"" + r.version + "\" cannot be handled as a " +
                      r.kind + ": strict decoding error: " + all);
  }
  return messages;
}

}  // namespace tailor::kube::embedded
