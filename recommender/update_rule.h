#pragma once

#include "recommender/resources.h"

namespace tailor::recommender {

// VPA updater's decision (docs/scoring.md, section 6): apply the target when a request is
// outside [lowerBound, upperBound]; otherwise when the pod is at least min_age old and
// sum over {cpu, memory} of |request - target| / request >= min_relative_change.
struct VpaUpdateRule {
  Seconds min_age = 12 * kHour;
  double min_relative_change = 0.10;
};

bool outside_bounds(const Resources& request, const Recommendation& r);
double relative_change(const Resources& request, const Resources& target);
bool vpa_should_apply(const VpaUpdateRule& rule, const Resources& request, const Recommendation& r,
                      Seconds pod_age);

}  // namespace tailor::recommender
