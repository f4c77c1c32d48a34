#include "kube/client/store_core.h"

#include <mutex>
#include <stdexcept>

namespace tailor::kube::cache {

void StoreCore::add_indexer(const std::string& name, ErasedIndexFunc index) {
  std::unique_lock lock(mutex_);
  if (!items_.empty()) {
    throw std::logic_error("store: indexer \"" + name + "\" added after objects were stored");
  }
  if (!index) throw std::invalid_argument("store: indexer \"" + name + "\" has no function");
  if (!indices_.emplace(name, Index{std::move(index), {}}).second) {
    throw std::logic_error("store: indexer \"" + name + "\" already exists");
  }
}

std::vector<std::vector<std::string>> StoreCore::compute_index_values(
    const StoreEntry& entry) const {
  std::vector<std::vector<std::string>> values;
  values.reserve(indices_.size());
  for (const auto& [name, index] : indices_) {
    values.push_back(index.function(entry.meta, entry.object.get()));
  }
  return values;
}

void StoreCore::index_add(const std::string& key, const Item& item) {
  auto values = item.index_values.begin();
  for (auto& [name, index] : indices_) {
    for (const auto& value : *values++) index.keys_by_value[value].insert(key);
  }
}

void StoreCore::index_remove(const std::string& key, const Item& item) {
  auto values = item.index_values.begin();
  for (auto& [name, index] : indices_) {
    for (const auto& value : *values++) {
      auto it = index.keys_by_value.find(value);
      if (it == index.keys_by_value.end()) continue;
      it->second.erase(key);
      if (it->second.empty()) index.keys_by_value.erase(it);
    }
  }
}

// Index functions run before anything changes, so one that throws leaves the store as it was.
std::optional<StoreEntry> StoreCore::upsert_locked(StoreEntry entry) {
  Item item{std::move(entry), {}};
  item.index_values = compute_index_values(item.entry);
  std::string key = item.entry.meta.key();
  std::optional<StoreEntry> previous = erase_locked(key);
  index_add(key, item);
  items_.emplace(std::move(key), std::move(item));
  return previous;
}

std::optional<StoreEntry> StoreCore::erase_locked(const std::string& key) {
  auto it = items_.find(key);
  if (it == items_.end()) return std::nullopt;
  Item previous = std::move(it->second);
  items_.erase(it);
  index_remove(key, previous);
  return std::move(previous.entry);
}

std::optional<StoreEntry> StoreCore::upsert(StoreEntry entry) {
  std::unique_lock lock(mutex_);
  return upsert_locked(std::move(entry));
}

std::optional<StoreEntry> StoreCore::erase(const std::string& key) {
  std::unique_lock lock(mutex_);
  return erase_locked(key);
}

StoreDiff StoreCore::replace(std::vector<StoreEntry> entries) {
  std::unique_lock lock(mutex_);
  StoreDiff diff;
  std::set<std::string> listed;
  for (auto& entry : entries) {
    std::string key = entry.meta.key();
    listed.insert(key);
    auto it = items_.find(key);
    if (it != items_.end() &&
        it->second.entry.meta.resource_version == entry.meta.resource_version) {
      continue;
    }
    // The store keeps the decoded entry and the diff gets the copy: the copies, made together
    // here and freed after the notifications, leave whole pages free, while copies kept in
    // the store would leave 100,000 pods' worth of holes among the decoded objects.
    std::optional<StoreEntry> previous = upsert_locked(std::move(entry));
    const StoreEntry& stored = items_.at(key).entry;
    if (previous) {
      diff.updated.emplace_back(std::move(*previous), stored);
    } else {
      diff.added.push_back(stored);
    }
  }
  std::vector<std::string> gone;
  for (const auto& [key, item] : items_) {
    if (!listed.count(key)) gone.push_back(key);
  }
  for (const auto& key : gone) diff.deleted.push_back(*erase_locked(key));
  return diff;
}

std::optional<StoreEntry> StoreCore::get(const std::string& key) const {
  std::shared_lock lock(mutex_);
  auto it = items_.find(key);
  if (it == items_.end()) return std::nullopt;
  return it->second.entry;
}

std::vector<StoreEntry> StoreCore::list() const {
  std::shared_lock lock(mutex_);
  std::vector<StoreEntry> entries;
  entries.reserve(items_.size());
  for (const auto& [key, item] : items_) entries.push_back(item.entry);
  return entries;
}

std::vector<std::string> StoreCore::keys() const {
  std::shared_lock lock(mutex_);
  std::vector<std::string> keys;
  keys.reserve(items_.size());
  for (const auto& [key, item] : items_) keys.push_back(key);
  return keys;
}

std::size_t StoreCore::size() const {
  std::shared_lock lock(mutex_);
  return items_.size();
}

const StoreCore::Index& StoreCore::index_named(std::string_view name) const {
  auto it = indices_.find(name);
  if (it == indices_.end()) {
    throw std::invalid_argument("store: no index named \"" + std::string(name) + "\"");
  }
  return it->second;
}

std::vector<StoreEntry> StoreCore::by_index(std::string_view index_name,
                                            std::string_view value) const {
  std::shared_lock lock(mutex_);
  const Index& index = index_named(index_name);
  std::vector<StoreEntry> entries;
  auto it = index.keys_by_value.find(std::string(value));
  if (it == index.keys_by_value.end()) return entries;
  for (const auto& key : it->second) entries.push_back(items_.at(key).entry);
  return entries;
}

std::vector<std::string> StoreCore::index_values(std::string_view index_name) const {
  std::shared_lock lock(mutex_);
  const Index& index = index_named(index_name);
  std::vector<std::string> values;
  for (const auto& [value, keys] : index.keys_by_value) values.push_back(value);
  return values;
}

}  // namespace tailor::kube::cache
