#include "actuator/limits.h"

#include "kube/model/resources.h"

namespace tailor::actuator {
namespace {

using kube::Quantity;

bool is_set(const Quantity* q) { return q != nullptr && q->value() != 0; }

const Quantity* limit_or_default(const Quantity* limit, const Quantity* default_limit) {
  return is_set(limit) ? limit : default_limit;
}

int unit_scale(std::string_view resource) { return resource == kube::kResourceCpu ? -3 : 0; }

}  // namespace

std::optional<Quantity> scale_proportionally(std::string_view resource, const Quantity& value,
                                             const Quantity& numerator,
                                             const Quantity& denominator) {
  int scale = unit_scale(resource);
  __int128 base = denominator.scaled_value(scale);
  if (base == 0) return std::nullopt;
  __int128 scaled =
      static_cast<__int128>(value.scaled_value(scale)) * numerator.scaled_value(scale) / base;
  constexpr __int128 kMax = INT64_MAX;
  if (scaled > kMax) scaled = kMax;  // VPA caps at MaxInt64 units as well
  return Quantity::from_scaled(static_cast<std::int64_t>(scaled), scale, value.format());
}

std::optional<Quantity> proportional_limit(std::string_view resource,
                                           const Quantity* original_limit,
                                           const Quantity* original_request,
                                           const Quantity& recommended_request,
                                           const Quantity* default_limit) {
  const Quantity* limit = limit_or_default(original_limit, default_limit);
  if (!is_set(limit) || recommended_request.value() == 0) return std::nullopt;
  if (!is_set(original_request) || original_request->milli_value() == limit->milli_value()) {
    return recommended_request;
  }
  return scale_proportionally(resource, *limit, recommended_request, *original_request);
}

Quantity boundary_request(std::string_view resource, const Quantity* original_request,
                          const Quantity* original_limit, const Quantity& boundary_limit,
                          const Quantity* default_limit) {
  const Quantity* limit = limit_or_default(original_limit, default_limit);
  if (!is_set(limit)) return Quantity();
  if (!is_set(original_request)) return boundary_limit;
  return scale_proportionally(resource, *original_request, boundary_limit, *limit)
      .value_or(Quantity());
}

}  // namespace tailor::actuator
