// Store<T>: a thread-safe local cache of objects keyed by "namespace/name", with indexers
// (client-go's cache.Indexer). Informers fill it; readers get shared, immutable objects.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "kube/client/store_core.h"

namespace tailor::kube::cache {

// Well-known index names.
inline constexpr std::string_view kIndexNamespace = "namespace";
inline constexpr std::string_view kIndexNodeName = "nodeName";
inline constexpr std::string_view kIndexOwnerUid = "ownerUid";

template <class T>
class Store {
 public:
  using Ptr = std::shared_ptr<const T>;
  using IndexFunc = std::function<std::vector<std::string>(const MetaInfo&, const T&)>;

  // Indexers must be added before the store holds objects (before the informer starts).
  void add_indexer(const std::string& name, IndexFunc index) {
    if (!index) throw std::invalid_argument("store: indexer \"" + name + "\" has no function");
    core_.add_indexer(name, [index = std::move(index)](const MetaInfo& meta, const void* object) {
      return index(meta, *static_cast<const T*>(object));
    });
  }

  Ptr get(const std::string& key) const { return object_of(core_.get(key)); }
  Ptr get(std::string_view namespace_, std::string_view name) const {
    return get(object_key(namespace_, name));
  }
  std::optional<MetaInfo> meta(const std::string& key) const {
    auto entry = core_.get(key);
    if (!entry) return std::nullopt;
    return entry->meta;
  }
  std::vector<Ptr> list() const { return objects_of(core_.list()); }
  std::vector<std::string> keys() const { return core_.keys(); }
  std::size_t size() const { return core_.size(); }
  std::vector<Ptr> by_index(std::string_view index_name, std::string_view value) const {
    return objects_of(core_.by_index(index_name, value));
  }
  std::vector<std::string> index_values(std::string_view index_name) const {
    return core_.index_values(index_name);
  }

  StoreCore& core() { return core_; }
  const StoreCore& core() const { return core_; }

  static Ptr object_of(const std::optional<StoreEntry>& entry) {
    if (!entry) return nullptr;
    return std::static_pointer_cast<const T>(entry->object);
  }

 private:
  static std::vector<Ptr> objects_of(const std::vector<StoreEntry>& entries) {
    std::vector<Ptr> objects;
    objects.reserve(entries.size());
    for (const auto& entry : entries)
      objects.push_back(std::static_pointer_cast<const T>(entry.object));
    return objects;
  }

  StoreCore core_;
};

// Index functions that need only metadata, for any T.
template <class T>
typename Store<T>::IndexFunc index_by_namespace() {
  return [](const MetaInfo& meta, const T&) { return std::vector<std::string>{meta.namespace_}; };
}
template <class T>
typename Store<T>::IndexFunc index_by_owner_uid() {
  return [](const MetaInfo& meta, const T&) { return meta.owner_uids; };
}

}  // namespace tailor::kube::cache
