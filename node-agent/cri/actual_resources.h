// What the node reports as a container's actual resources (status.containerStatuses[].resources),
// converted back from what the runtime applied, as the kubelet does: CPU limit = quota·1000/period,
// CPU request = ceil(shares·1000/1024), memory limit from the runtime, memory request from the
// allocation (it is never written to cgroups). Where the cgroup minimums make values unreadable —
// actual and allocated CPU requests both ≤ 2m, or CPU limits both ≤ 10m — the allocated value is
// reported, so that tiny "equivalent" resizes settle.
#pragma once

#include "node-agent/cri/cgroup_values.h"
#include "node-agent/cri/cri_client.h"

namespace tailor::node::cri {

inline constexpr std::int64_t kMinReadableCpuRequestMilli = 2;
inline constexpr std::int64_t kMinReadableCpuLimitMilli = 10;

ResourceAmounts actual_resources(const LinuxResources& applied, const ResourceAmounts& allocated);

}  // namespace tailor::node::cri
