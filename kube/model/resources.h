// ResourceList and ResourceRequirements (core/v1), keyed by resource name ("cpu", "memory",
// "ephemeral-storage", "hugepages-2Mi", "example.com/gpu", ...).
#pragma once

#include <cstddef>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kube/model/quantity.h"

namespace tailor::kube {

inline constexpr std::string_view kResourceCpu = "cpu";
inline constexpr std::string_view kResourceMemory = "memory";
inline constexpr std::string_view kResourceEphemeralStorage = "ephemeral-storage";
inline constexpr std::string_view kResourceHugePagesPrefix = "hugepages-";

// A resource-name -> quantity map kept as a sorted vector: lists hold a handful of entries, and
// a flat layout decodes and frees far faster than tree nodes. The interface is the subset of
// std::map the code uses (find/at/operator[]/try_emplace/insert_or_assign/erase, ordered
// iteration over pair<const-by-convention name, Quantity>).
class ResourceList {
 public:
  using value_type = std::pair<std::string, Quantity>;
  using iterator = std::vector<value_type>::iterator;
  using const_iterator = std::vector<value_type>::const_iterator;

  ResourceList() = default;
  ResourceList(std::initializer_list<value_type> entries);

  iterator begin() { return entries_.begin(); }
  iterator end() { return entries_.end(); }
  const_iterator begin() const { return entries_.begin(); }
  const_iterator end() const { return entries_.end(); }
  std::size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  void clear() { entries_.clear(); }

  iterator find(std::string_view name);
  const_iterator find(std::string_view name) const;
  bool contains(std::string_view name) const { return find(name) != end(); }
  std::size_t count(std::string_view name) const { return contains(name) ? 1 : 0; }
  // Throws std::out_of_range naming the resource when absent.
  const Quantity& at(std::string_view name) const;
  Quantity& at(std::string_view name);
  // Inserts a zero quantity when absent.
  Quantity& operator[](std::string_view name);
  std::pair<iterator, bool> try_emplace(std::string_view name, const Quantity& quantity);
  std::pair<iterator, bool> insert_or_assign(std::string_view name, const Quantity& quantity);
  std::size_t erase(std::string_view name);

  bool operator==(const ResourceList& other) const = default;

 private:
  iterator lower_bound(std::string_view name);
  std::vector<value_type> entries_{};
};

struct ResourceRequirements {
  ResourceList limits{};
  ResourceList requests{};
  bool operator==(const ResourceRequirements&) const = default;
};

// The quantity of a resource, or nullptr when the list does not name it.
const Quantity* find_resource(const ResourceList& list, std::string_view name);

// list[name] += q for every entry of other (a missing entry counts as zero).
void add_resources(ResourceList& list, const ResourceList& other);
// list[name] = max(list[name], q) for every entry of other (a missing entry is taken over).
void max_resources(ResourceList& list, const ResourceList& other);

}  // namespace tailor::kube
