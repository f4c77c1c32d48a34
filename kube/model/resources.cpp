#include "kube/model/resources.h"

#include <algorithm>
#include <stdexcept>

namespace tailor::kube {

namespace {
bool name_less(const ResourceList::value_type& entry, std::string_view name) {
  return entry.first < name;
}
}  // namespace

ResourceList::ResourceList(std::initializer_list<value_type> entries) {
  for (const auto& [name, quantity] : entries) insert_or_assign(name, quantity);
}

ResourceList::iterator ResourceList::lower_bound(std::string_view name) {
  // API servers send names sorted, so decoding appends: check the end first.
  if (entries_.empty() || entries_.back().first < name) return entries_.end();
  return std::lower_bound(entries_.begin(), entries_.end(), name, name_less);
}

ResourceList::iterator ResourceList::find(std::string_view name) {
  auto it = lower_bound(name);
  return it != entries_.end() && it->first == name ? it : entries_.end();
}

ResourceList::const_iterator ResourceList::find(std::string_view name) const {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), name, name_less);
  return it != entries_.end() && it->first == name ? it : entries_.end();
}

const Quantity& ResourceList::at(std::string_view name) const {
  auto it = find(name);
  if (it == end()) throw std::out_of_range("resource \"" + std::string(name) + "\" not in list");
  return it->second;
}

Quantity& ResourceList::at(std::string_view name) {
  return const_cast<Quantity&>(static_cast<const ResourceList&>(*this).at(name));
}

Quantity& ResourceList::operator[](std::string_view name) {
  return try_emplace(name, Quantity()).first->second;
}

std::pair<ResourceList::iterator, bool> ResourceList::try_emplace(std::string_view name,
                                                                  const Quantity& quantity) {
  auto it = lower_bound(name);
  if (it != entries_.end() && it->first == name) return {it, false};
  // Most lists name cpu and memory: one allocation instead of growing 1 -> 2.
  if (entries_.capacity() == 0) {
    entries_.reserve(2);
    it = entries_.end();
  }
  return {entries_.emplace(it, std::string(name), quantity), true};
}

std::pair<ResourceList::iterator, bool> ResourceList::insert_or_assign(std::string_view name,
                                                                       const Quantity& quantity) {
  auto [it, inserted] = try_emplace(name, quantity);
  if (!inserted) it->second = quantity;
  return {it, inserted};
}

std::size_t ResourceList::erase(std::string_view name) {
  auto it = find(name);
  if (it == end()) return 0;
  entries_.erase(it);
  return 1;
}

}  // namespace tailor::kube
