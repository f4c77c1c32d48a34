#include "node-agent/cri/cgroup_values.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace tailor::node::cri {
namespace {

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

void require_non_negative(std::int64_t value, const char* what) {
  if (value < 0) {
    throw std::invalid_argument(std::string(what) + " must not be negative, got " +
                                std::to_string(value));
  }
}

std::int64_t checked_sum(std::int64_t a, std::int64_t b, const char* what) {
  if (a > kMax - b) throw std::invalid_argument(std::string(what) + " overflows 64 bits");
  return a + b;
}

}  // namespace

std::int64_t milli_cpu_to_shares(std::int64_t milli_cpu) {
  require_non_negative(milli_cpu, "cpu request (milli-CPU)");
  // Above this every request clamps to the maximum; checking first avoids overflow.
  if (milli_cpu > kMaxShares * kMilliCpuPerCpu / kSharesPerCpu + 1) return kMaxShares;
  const std::int64_t shares = milli_cpu * kSharesPerCpu / kMilliCpuPerCpu;
  return std::clamp(shares, kMinShares, kMaxShares);
}

std::int64_t milli_cpu_to_quota(std::int64_t milli_cpu, std::int64_t period_us) {
  require_non_negative(milli_cpu, "cpu limit (milli-CPU)");
  if (period_us <= 0) {
    throw std::invalid_argument("cfs period must be positive, got " + std::to_string(period_us));
  }
  if (milli_cpu == 0) return kUnlimitedQuota;
  if (milli_cpu > kMax / period_us) {
    throw std::invalid_argument("cpu limit " + std::to_string(milli_cpu) +
                                "m is too large for a CFS quota");
  }
  return std::max(milli_cpu * period_us / kMilliCpuPerCpu, kMinQuotaUs);
}

std::int64_t shares_to_milli_cpu(std::int64_t shares) {
  if (shares < kMinShares) return 0;
  const std::int64_t capped = std::min(shares, kMax / kMilliCpuPerCpu);
  return (capped * kMilliCpuPerCpu + kSharesPerCpu - 1) / kSharesPerCpu;
}

std::optional<std::int64_t> quota_to_milli_cpu(std::int64_t quota_us, std::int64_t period_us) {
  if (quota_us <= 0 || period_us <= 0) return std::nullopt;
  if (quota_us > kMax / kMilliCpuPerCpu) return quota_us / period_us * kMilliCpuPerCpu;
  return quota_us * kMilliCpuPerCpu / period_us;
}

std::int64_t shares_to_cpu_weight(std::int64_t shares) {
  const std::int64_t clamped = std::clamp(shares, kMinShares, kMaxShares);
  return 1 + (clamped - kMinShares) * 9999 / (kMaxShares - kMinShares);
}

std::int64_t cpu_weight_to_shares(std::int64_t weight) {
  const std::int64_t clamped = std::clamp<std::int64_t>(weight, 1, 10000);
  return (clamped - 1) * (kMaxShares - kMinShares) / 9999 + kMinShares;
}

std::optional<std::string> memory_limit_below_usage(std::int64_t new_limit_bytes,
                                                    std::int64_t usage_bytes) {
  if (new_limit_bytes <= 0 || usage_bytes < new_limit_bytes) return std::nullopt;
  return "memory limit (" + std::to_string(new_limit_bytes) + ") below current usage (" +
         std::to_string(usage_bytes) + ")";
}

std::string cpu_max_value(std::int64_t quota_us, std::int64_t period_us) {
  const std::string quota = quota_us <= 0 ? "max" : std::to_string(quota_us);
  return quota + " " + std::to_string(period_us);
}

std::string memory_max_value(std::optional<std::int64_t> limit_bytes) {
  return limit_bytes && *limit_bytes > 0 ? std::to_string(*limit_bytes) : "max";
}

CgroupValues container_cgroup_values(const ResourceAmounts& container) {
  const std::int64_t cpu_request =
      container.cpu_request_milli.value_or(container.cpu_limit_milli.value_or(0));
  CgroupValues values;
  values.cpu_shares = milli_cpu_to_shares(cpu_request);
  values.cpu_quota_us = milli_cpu_to_quota(container.cpu_limit_milli.value_or(0));
  values.cpu_period_us = kQuotaPeriodUs;
  if (container.memory_limit_bytes && *container.memory_limit_bytes > 0) {
    values.memory_limit_bytes = container.memory_limit_bytes;
  } else if (container.memory_limit_bytes) {
    require_non_negative(*container.memory_limit_bytes, "memory limit (bytes)");
  }
  return values;
}

namespace {

struct PodSums {
  std::int64_t cpu_request_milli = 0;
  std::int64_t cpu_limit_milli = 0;
  std::int64_t memory_limit_bytes = 0;
  bool every_cpu_limit = true;
  bool every_memory_limit = true;
};

std::int64_t positive_or_zero(std::optional<std::int64_t> value, const char* what) {
  if (!value) return 0;
  require_non_negative(*value, what);
  return *value;
}

// Requests default to limits (as the API server defaults them at creation).
std::int64_t cpu_request_of(const ResourceAmounts& amounts) {
  return positive_or_zero(
      amounts.cpu_request_milli ? amounts.cpu_request_milli : amounts.cpu_limit_milli,
      "cpu request (milli-CPU)");
}

PodSums sum_containers(std::span<const ResourceAmounts> containers) {
  PodSums sums;
  for (const auto& c : containers) {
    sums.cpu_request_milli = checked_sum(sums.cpu_request_milli, cpu_request_of(c), "pod cpu");
    const std::int64_t cpu_limit = positive_or_zero(c.cpu_limit_milli, "cpu limit (milli-CPU)");
    const std::int64_t mem_limit = positive_or_zero(c.memory_limit_bytes, "memory limit (bytes)");
    sums.every_cpu_limit = sums.every_cpu_limit && cpu_limit > 0;
    sums.every_memory_limit = sums.every_memory_limit && mem_limit > 0;
    sums.cpu_limit_milli = checked_sum(sums.cpu_limit_milli, cpu_limit, "pod cpu limit");
    sums.memory_limit_bytes = checked_sum(sums.memory_limit_bytes, mem_limit, "pod memory limit");
  }
  return sums;
}

void add_overhead(PodSums& sums, const PodOverhead& overhead) {
  require_non_negative(overhead.cpu_milli, "pod overhead cpu (milli-CPU)");
  require_non_negative(overhead.memory_bytes, "pod overhead memory (bytes)");
  sums.cpu_request_milli = checked_sum(sums.cpu_request_milli, overhead.cpu_milli, "pod cpu");
  if (sums.every_cpu_limit) {
    sums.cpu_limit_milli = checked_sum(sums.cpu_limit_milli, overhead.cpu_milli, "pod cpu limit");
  }
  if (sums.every_memory_limit) {
    sums.memory_limit_bytes =
        checked_sum(sums.memory_limit_bytes, overhead.memory_bytes, "pod memory limit");
  }
}

}  // namespace

CgroupValues pod_cgroup_values(std::span<const ResourceAmounts> containers,
                               const PodOverhead& overhead, kube::QosClass qos) {
  CgroupValues values;
  if (qos == kube::QosClass::BestEffort) {
    values.cpu_shares = kMinShares;
    return values;
  }
  PodSums sums = sum_containers(containers);
  add_overhead(sums, overhead);
  values.cpu_shares = milli_cpu_to_shares(sums.cpu_request_milli);
  const bool guaranteed = qos == kube::QosClass::Guaranteed;
  if (guaranteed || (sums.every_cpu_limit && !containers.empty())) {
    values.cpu_quota_us = milli_cpu_to_quota(sums.cpu_limit_milli);
    values.cpu_period_us = kQuotaPeriodUs;
  }
  if (guaranteed || (sums.every_memory_limit && !containers.empty())) {
    values.memory_limit_bytes = sums.memory_limit_bytes;
  }
  return values;
}

kube::QosClass qos_of(std::span<const ResourceAmounts> containers) {
  bool any_set = false;
  bool guaranteed = !containers.empty();
  for (const auto& c : containers) {
    const auto cpu_request = c.cpu_request_milli ? c.cpu_request_milli : c.cpu_limit_milli;
    const auto memory_request =
        c.memory_request_bytes ? c.memory_request_bytes : c.memory_limit_bytes;
    const auto nonzero = [](std::optional<std::int64_t> v) { return v && *v > 0; };
    any_set = any_set || nonzero(cpu_request) || nonzero(memory_request) ||
              nonzero(c.cpu_limit_milli) || nonzero(c.memory_limit_bytes);
    guaranteed = guaranteed && nonzero(c.cpu_limit_milli) && nonzero(c.memory_limit_bytes) &&
                 cpu_request == c.cpu_limit_milli && memory_request == c.memory_limit_bytes;
  }
  if (!any_set) return kube::QosClass::BestEffort;
  return guaranteed ? kube::QosClass::Guaranteed : kube::QosClass::Burstable;
}

}  // namespace tailor::node::cri
