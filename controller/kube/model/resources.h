// ResourceList and ResourceRequirements (core/v1), keyed by resource name ("cpu", "memory",
// "ephemeral-storage", "hugepages-2Mi", "example.com/gpu", ...).
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "controller/kube/model/quantity.h"

namespace tailor::kube {

inline constexpr std::string_view kResourceCpu = "cpu";
inline constexpr std::string_view kResourceMemory = "memory";
inline constexpr std::string_view kResourceEphemeralStorage = "ephemeral-storage";
inline constexpr std::string_view kResourceHugePagesPrefix = "hugepages-";

using ResourceList = std::map<std::string, Quantity, std::less<>>;

struct ResourceRequirements {
  ResourceList limits;
  ResourceList requests;
  bool operator==(const ResourceRequirements&) const = default;
};

// The quantity of a resource, or nullptr when the list does not name it.
const Quantity* find_resource(const ResourceList& list, std::string_view name);

// list[name] += q for every entry of other (a missing entry counts as zero).
void add_resources(ResourceList& list, const ResourceList& other);
// list[name] = max(list[name], q) for every entry of other (a missing entry is taken over).
void max_resources(ResourceList& list, const ResourceList& other);

}  // namespace tailor::kube
