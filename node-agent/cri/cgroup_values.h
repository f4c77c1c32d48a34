// Cgroup values for pods and containers, computed as the kubelet computes them
// (pkg/kubelet/cm/helpers_linux.go and kuberuntime's container config), plus the cgroup v2
// equivalents and the read-back conversions the kubelet uses to report actual resources.
// Pure functions over plain integers: milli-CPU, bytes, microseconds.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "kube/model/qos.h"

namespace tailor::node::cri {

inline constexpr std::int64_t kMinShares = 2;
inline constexpr std::int64_t kMaxShares = 262144;
inline constexpr std::int64_t kSharesPerCpu = 1024;
inline constexpr std::int64_t kMilliCpuPerCpu = 1000;
inline constexpr std::int64_t kQuotaPeriodUs = 100000;
inline constexpr std::int64_t kMinQuotaUs = 1000;
// cgroup v1 cpu.cfs_quota_us when there is no limit.
inline constexpr std::int64_t kUnlimitedQuota = -1;

// cpu.shares for a CPU request: milli·1024/1000 clamped to [2, 262144]; 0 gives 2.
std::int64_t milli_cpu_to_shares(std::int64_t milli_cpu);
// cpu.cfs_quota_us for a CPU limit over `period_us`: milli·period/1000, at least 1000 µs.
// A limit of 0 means "no limit" and gives kUnlimitedQuota.
std::int64_t milli_cpu_to_quota(std::int64_t milli_cpu, std::int64_t period_us = kQuotaPeriodUs);

// Read-back (kuberuntime sharesToMilliCPU / quotaToMilliCPU): ceil(shares·1000/1024), 0 below
// the minimum; quota·1000/period, nullopt when unlimited (quota ≤ 0) or the period is unset.
std::int64_t shares_to_milli_cpu(std::int64_t shares);
std::optional<std::int64_t> quota_to_milli_cpu(std::int64_t quota_us, std::int64_t period_us);

// cgroup v2: cpu.weight from cpu.shares, 1 + (shares−2)·9999/262142 (shares clamped first);
// cpu.max "<quota|max> <period>"; memory.max "<bytes|max>".
std::int64_t shares_to_cpu_weight(std::int64_t shares);
// The inverse the kubelet uses to read cpu.weight back as shares: ((weight−1)·262142)/9999 + 2.
std::int64_t cpu_weight_to_shares(std::int64_t weight);
std::string cpu_max_value(std::int64_t quota_us, std::int64_t period_us = kQuotaPeriodUs);
std::string memory_max_value(std::optional<std::int64_t> limit_bytes);

// A container's CPU and memory amounts; nullopt = not set.
struct ResourceAmounts {
  std::optional<std::int64_t> cpu_request_milli;
  std::optional<std::int64_t> cpu_limit_milli;
  std::optional<std::int64_t> memory_request_bytes;
  std::optional<std::int64_t> memory_limit_bytes;
};

// spec.overhead: added to the pod's requests, and to its limits where it has one.
struct PodOverhead {
  std::int64_t cpu_milli = 0;
  std::int64_t memory_bytes = 0;
};

// What goes into a cgroup (v1 terms). Unset fields are left as they are by the writer.
struct CgroupValues {
  std::optional<std::int64_t> cpu_shares;
  std::optional<std::int64_t> cpu_quota_us;  // kUnlimitedQuota for no limit
  std::optional<std::int64_t> cpu_period_us;
  std::optional<std::int64_t> memory_limit_bytes;  // nullopt: unlimited / not managed

  bool operator==(const CgroupValues&) const = default;
};

// Container level: shares from the request (from the limit when only a limit is set, 2 when
// neither), quota from the limit (kUnlimitedQuota without one), period 100000, memory limit.
// Memory requests are never written to cgroups.
CgroupValues container_cgroup_values(const ResourceAmounts& container);

// Pod level (ResourceConfigForPod): sums of the containers' requests and limits plus overhead.
// Guaranteed: shares, quota, memory limit. Burstable: shares; quota only if every container has a
// CPU limit; memory limit only if every container has one. BestEffort: shares 2 only.
CgroupValues pod_cgroup_values(std::span<const ResourceAmounts> containers,
                               const PodOverhead& overhead, kube::QosClass qos);

// A memory limit decrease is refused while usage has already reached the new limit (the kernel
// would reclaim or OOM-kill at once). Returns the reason, "memory limit (N) below current usage
// (M)", or nullopt when the limit may be written.
std::optional<std::string> memory_limit_below_usage(std::int64_t new_limit_bytes,
                                                    std::int64_t usage_bytes);

// QoS of a pod whose containers have these amounts (requests default to limits, as the API does).
kube::QosClass qos_of(std::span<const ResourceAmounts> containers);

}  // namespace tailor::node::cri
