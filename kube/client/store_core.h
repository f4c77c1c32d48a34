// StoreCore: the thread-safe, indexed object store behind Store<T> and the informer, with the
// object type erased so that its logic (indices, relist diffing) is compiled once, in a .cpp.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "kube/client/store_meta.h"

namespace tailor::kube::cache {

struct StoreEntry {
  MetaInfo meta;
  std::shared_ptr<const void> object;  // a T, owned by Store<T>'s user-facing API
};

// Index values of one object (an object may have several, e.g. several owners, or none).
using ErasedIndexFunc = std::function<std::vector<std::string>(const MetaInfo&, const void*)>;

// What replace() changed, for the informer's notifications.
struct StoreDiff {
  std::vector<StoreEntry> added;
  std::vector<std::pair<StoreEntry, StoreEntry>> updated;  // (old, new): resourceVersion changed
  std::vector<StoreEntry> deleted;                         // gone from the new list
};

class StoreCore {
 public:
  // Indexers must be added before the first object; adding one later throws std::logic_error.
  void add_indexer(const std::string& name, ErasedIndexFunc index);

  // Inserts or replaces; returns the previous entry under the same key.
  std::optional<StoreEntry> upsert(StoreEntry entry);
  std::optional<StoreEntry> erase(const std::string& key);
  // Makes the store hold exactly `entries` (a relist). Unchanged objects (same resourceVersion)
  // keep their existing entry.
  StoreDiff replace(std::vector<StoreEntry> entries);

  std::optional<StoreEntry> get(const std::string& key) const;
  std::vector<StoreEntry> list() const;
  std::vector<std::string> keys() const;
  std::size_t size() const;
  // Objects whose index `index_name` yields `value`; throws std::invalid_argument for an
  // unknown index.
  std::vector<StoreEntry> by_index(std::string_view index_name, std::string_view value) const;
  // The values an index currently holds (e.g. every namespace with objects).
  std::vector<std::string> index_values(std::string_view index_name) const;

 private:
  struct Index {
    ErasedIndexFunc function;
    std::unordered_map<std::string, std::set<std::string>> keys_by_value;
  };

  // An entry with the values each index gave it (so removal never calls the index functions).
  struct Item {
    StoreEntry entry;
    std::vector<std::vector<std::string>> index_values;  // in indices_ order
  };

  const Index& index_named(std::string_view name) const;
  std::vector<std::vector<std::string>> compute_index_values(const StoreEntry& entry) const;
  void index_add(const std::string& key, const Item& item);
  void index_remove(const std::string& key, const Item& item);
  std::optional<StoreEntry> upsert_locked(StoreEntry entry);
  std::optional<StoreEntry> erase_locked(const std::string& key);

  mutable std::shared_mutex mutex_;
  std::unordered_map<std::string, Item> items_;
  std::map<std::string, Index, std::less<>> indices_;
};

}  // namespace tailor::kube::cache
