// Amounts no cgroup can hold, whatever the node's capacity. Quantities saturate at the int64
// range when read as integers, and cgroup arithmetic overflows before that, so an absurd value
// (cpu: 1e18, memory: 100Ei) would otherwise be written silently wrong or fail deep in the
// actuation. The node treats such a pod or resize as one it can never apply, with a message that
// names the container and the value.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "kube/model/pod.h"

namespace tailor::node::allocation {

// The largest CPU amount whose CFS quota (milli × period 100000 µs / 1000) stays in 64 bits.
inline constexpr std::int64_t kMaxCgroupCpuMilli = INT64_MAX / 100000;
// cgroup v1 reads a memory limit at or above 2^62 as "unlimited"; a limit must stay below it.
inline constexpr std::int64_t kMaxCgroupMemoryBytes = (std::int64_t{1} << 62) - 1;

// The first cpu/memory request or limit of a container, sidecar or init container, or of the
// pod's sums (overhead included), beyond those bounds, e.g. `container "app": limits.cpu 1e18
// is more than a cgroup can hold (at most 92233720368547m)`; nullopt when every amount fits.
std::optional<std::string> unrepresentable_resources(const kube::Pod& pod);

}  // namespace tailor::node::allocation
