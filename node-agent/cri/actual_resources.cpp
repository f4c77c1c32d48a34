#include "node-agent/cri/actual_resources.h"

namespace tailor::node::cri {
namespace {

// Below the readable minimum on both sides, the allocation is the better answer.
std::optional<std::int64_t> settle(std::optional<std::int64_t> actual,
                                   std::optional<std::int64_t> allocated, std::int64_t minimum) {
  const bool actual_tiny = !actual || *actual <= minimum;
  const bool allocated_tiny = !allocated || *allocated <= minimum;
  return actual_tiny && allocated_tiny ? allocated : actual;
}

}  // namespace

ResourceAmounts actual_resources(const LinuxResources& applied, const ResourceAmounts& allocated) {
  ResourceAmounts actual;
  if (applied.cpu_shares > 0) {
    actual.cpu_request_milli = settle(shares_to_milli_cpu(applied.cpu_shares),
                                      allocated.cpu_request_milli, kMinReadableCpuRequestMilli);
  } else {
    actual.cpu_request_milli = allocated.cpu_request_milli;  // runtime did not say
  }
  actual.cpu_limit_milli = settle(quota_to_milli_cpu(applied.cpu_quota, applied.cpu_period),
                                  allocated.cpu_limit_milli, kMinReadableCpuLimitMilli);
  if (applied.memory_limit_in_bytes > 0) actual.memory_limit_bytes = applied.memory_limit_in_bytes;
  actual.memory_request_bytes = allocated.memory_request_bytes;
  return actual;
}

}  // namespace tailor::node::cri
