#pragma once

#include <limits>

#include "recommender/resources.h"

namespace tailor::recommender {

// A policy's per-container bounds (containerPolicies[].minAllowed / maxAllowed); unset bounds
// are 0 and +infinity.
struct ContainerPolicy {
  Resources min_allowed{0, 0};
  Resources max_allowed{std::numeric_limits<double>::infinity(),
                        std::numeric_limits<double>::infinity()};
};

// VPA's capping (utils/vpa/capping.go): target and both bounds are raised to minAllowed, then
// lowered to maxAllowed (so maxAllowed wins when they conflict); uncapped_target keeps the
// target as estimated.
Recommendation apply_container_policy(const Recommendation& r, const ContainerPolicy& p);

}  // namespace tailor::recommender
