// Object metadata shared by every Kubernetes object (metav1.ObjectMeta, ListMeta, owner
// references). Only the fields Tailor reads; unknown fields are skipped when decoding.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tailor::kube {

// Ordered so encodings are deterministic; heterogeneous lookup by string_view.
using StringMap = std::map<std::string, std::string, std::less<>>;

struct OwnerReference {
  std::string api_version{};
  std::string kind{};
  std::string name{};
  std::string uid{};
  bool controller = false;
  bool block_owner_deletion = false;
};

struct ObjectMeta {
  std::string name{};
  std::string generate_name{};
  std::string namespace_{};
  std::string uid{};
  std::string resource_version{};
  std::int64_t generation = 0;
  std::string creation_timestamp{};  // RFC 3339; empty when unset
  std::string deletion_timestamp{};  // RFC 3339; empty when the object is not being deleted
  std::optional<std::int64_t> deletion_grace_period_seconds{};
  StringMap labels{};
  StringMap annotations{};
  std::vector<OwnerReference> owner_references{};
  std::vector<std::string> finalizers{};
};

// The owner reference with controller: true, if any.
const OwnerReference* controller_of(const ObjectMeta& meta);

struct ListMeta {
  std::string resource_version{};
  std::string continue_token{};  // "continue"
  std::optional<std::int64_t> remaining_item_count{};
};

// Any object read for its metadata only (metav1.PartialObjectMetadata): for informers and owner
// lookups over kinds the model has no type for (ReplicaSets, Deployments, custom resources).
struct PartialObjectMetadata {
  std::string api_version{};
  std::string kind{};
  ObjectMeta metadata{};
};

// core/v1 ObjectReference (Event.involvedObject).
struct ObjectReference {
  std::string kind{};
  std::string namespace_{};
  std::string name{};
  std::string uid{};
  std::string api_version{};
  std::string resource_version{};
  std::string field_path{};
};

}  // namespace tailor::kube
