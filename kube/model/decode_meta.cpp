// Readers for metadata and resource types shared by every object.
#include "kube/model/json_reader.h"

namespace tailor::kube::json {

void read(od::value& v, OwnerReference& out) {
  for_each_field(v, [&](std::string_view key, od::value& f) {
    if (key == "apiVersion")
      read(f, out.api_version);
    else if (key == "kind")
      read(f, out.kind);
    else if (key == "name")
      read(f, out.name);
    else if (key == "uid")
      read(f, out.uid);
    else if (key == "controller")
      read(f, out.controller);
    else if (key == "blockOwnerDeletion")
      read(f, out.block_owner_deletion);
  });
}

void read(od::value& v, ObjectMeta& out) {
  for_each_field(v, [&](std::string_view key, od::value& f) {
    if (key == "name")
      read(f, out.name);
    else if (key == "namespace")
      read(f, out.namespace_);
    else if (key == "uid")
      read(f, out.uid);
    else if (key == "resourceVersion")
      read(f, out.resource_version);
    else if (key == "generation")
      read(f, out.generation);
    else if (key == "creationTimestamp")
      read(f, out.creation_timestamp);
    else if (key == "labels")
      read(f, out.labels);
    else if (key == "annotations")
      read(f, out.annotations);
    else if (key == "ownerReferences")
      read(f, out.owner_references);
    else if (key == "finalizers")
      read(f, out.finalizers);
    else if (key == "generateName")
      read(f, out.generate_name);
    else if (key == "deletionTimestamp")
      read(f, out.deletion_timestamp);
    else if (key == "deletionGracePeriodSeconds")
      read(f, out.deletion_grace_period_seconds);
  });
}

void read(od::value& v, ListMeta& out) {
  for_each_field(v, [&](std::string_view key, od::value& f) {
    if (key == "resourceVersion")
      read(f, out.resource_version);
    else if (key == "continue")
      read(f, out.continue_token);
    else if (key == "remainingItemCount")
      read(f, out.remaining_item_count);
  });
}

void read(od::value& v, ObjectReference& out) {
  for_each_field(v, [&](std::string_view key, od::value& f) {
    if (key == "kind")
      read(f, out.kind);
    else if (key == "namespace")
      read(f, out.namespace_);
    else if (key == "name")
      read(f, out.name);
    else if (key == "uid")
      read(f, out.uid);
    else if (key == "apiVersion")
      read(f, out.api_version);
    else if (key == "resourceVersion")
      read(f, out.resource_version);
    else if (key == "fieldPath")
      read(f, out.field_path);
  });
}

void read(od::value& v, PartialObjectMetadata& out) {
  for_each_field(v, [&](std::string_view key, od::value& f) {
    if (key == "metadata")
      read(f, out.metadata);
    else if (key == "apiVersion")
      read(f, out.api_version);
    else if (key == "kind")
      read(f, out.kind);
  });
}

void read(od::value& v, ResourceRequirements& out) {
  for_each_field(v, [&](std::string_view key, od::value& f) {
    if (key == "requests")
      read(f, out.requests);
    else if (key == "limits")
      read(f, out.limits);
  });
}

}  // namespace tailor::kube::json
