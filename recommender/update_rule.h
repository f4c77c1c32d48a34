#pragma once

#include "recommender/resources.h"

namespace tailor::recommender {

// VPA updater's decision (docs/scoring.md, section 6; its update_priority_calculator.go): apply
// the target when a request is outside [lowerBound, upperBound], or after a quick OOM kill (one
// of the pod's containers last terminated OOMKilled after running less than evict_after_oom,
// VPA's --evict-after-oom-threshold) unless the target equals the request; otherwise when the
// pod is at least min_age old and sum over {cpu, memory} of |request - target| / request >=
// min_relative_change.
struct VpaUpdateRule {
  Seconds min_age = 12 * kHour;
  double min_relative_change = 0.10;
  Seconds evict_after_oom = 10 * 60;
};

bool outside_bounds(const Resources& request, const Recommendation& r);
double relative_change(const Resources& request, const Resources& target);
// `oom_run`: how long the shortest of the pod's runs that ended in an OOM kill ran (its
// containers' last terminations: finishedAt - startedAt; < 0 when none was an OOM kill).
bool quick_oom(const VpaUpdateRule& rule, Seconds oom_run);
bool vpa_should_apply(const VpaUpdateRule& rule, const Resources& request, const Recommendation& r,
                      Seconds pod_age, Seconds oom_run = -1);

}  // namespace tailor::recommender
