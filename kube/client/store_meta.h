// The object identity an informer's store needs, read generically from any Kubernetes object's
// JSON (metadata.namespace/name/uid/resourceVersion/ownerReferences), so the store and informer
// work for every type without knowing the typed model.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace tailor::kube::cache {

// An object or document that cannot be read (malformed JSON, missing metadata.name, wrong types).
class DecodeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct MetaInfo {
  std::string namespace_;  // empty for cluster-scoped objects
  std::string name;
  std::string uid;
  std::string resource_version;
  std::vector<std::string> owner_uids;  // metadata.ownerReferences[].uid

  // "namespace/name", or "name" for cluster-scoped objects (client-go's MetaNamespaceKeyFunc).
  std::string key() const;
};

// The store key of an object, as MetaInfo::key().
std::string object_key(std::string_view namespace_, std::string_view name);

// Reads the metadata of one object; throws DecodeError naming what is wrong.
MetaInfo parse_meta(std::string_view object_json);

}  // namespace tailor::kube::cache
