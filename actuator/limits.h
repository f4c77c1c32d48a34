// Requests to limits, as VPA keeps them (utils/vpa/limit_and_request_scaling.go): a limit keeps
// its ratio to the request; CPU is scaled in millicores and memory in whole bytes, rounding down.
#pragma once

#include <optional>
#include <string_view>

#include "kube/model/quantity.h"

namespace tailor::actuator {

// value * numerator / denominator in the resource's unit (cpu: milli, other: whole units),
// rounded down. A zero denominator gives nullopt.
std::optional<kube::Quantity> scale_proportionally(std::string_view resource,
                                                   const kube::Quantity& value,
                                                   const kube::Quantity& numerator,
                                                   const kube::Quantity& denominator);

// The limit for `recommended_request` that keeps original_limit : original_request. No
// original limit (nor LimitRange default) -> none; no original request, or limit == request ->
// the recommended request itself.
std::optional<kube::Quantity> proportional_limit(std::string_view resource,
                                                 const kube::Quantity* original_limit,
                                                 const kube::Quantity* original_request,
                                                 const kube::Quantity& recommended_request,
                                                 const kube::Quantity* default_limit);

// The request that, kept in the container's ratio, puts its limit at `boundary_limit`
// (VPA's GetBoundaryRequest); zero means "no boundary".
kube::Quantity boundary_request(std::string_view resource, const kube::Quantity* original_request,
                                const kube::Quantity* original_limit,
                                const kube::Quantity& boundary_limit,
                                const kube::Quantity* default_limit);

}  // namespace tailor::actuator
