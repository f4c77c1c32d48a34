#include "recommender/update_rule.h"

#include <cmath>

namespace tailor::recommender {

bool outside_bounds(const Resources& q, const Recommendation& r) {
  return q.cpu_cores < r.lower_bound.cpu_cores || q.cpu_cores > r.upper_bound.cpu_cores ||
         q.memory_bytes < r.lower_bound.memory_bytes || q.memory_bytes > r.upper_bound.memory_bytes;
}

double relative_change(const Resources& q, const Resources& t) {
  double sum = 0;
  if (q.cpu_cores > 0) sum += std::fabs(q.cpu_cores - t.cpu_cores) / q.cpu_cores;
  if (q.memory_bytes > 0) sum += std::fabs(q.memory_bytes - t.memory_bytes) / q.memory_bytes;
  return sum;
}

bool quick_oom(const VpaUpdateRule& rule, Seconds oom_run) {
  return oom_run >= 0 && oom_run < rule.evict_after_oom;
}

bool vpa_should_apply(const VpaUpdateRule& rule, const Resources& request, const Recommendation& r,
                      Seconds pod_age, Seconds oom_run) {
  const double change = relative_change(request, r.target);
  const bool quick = quick_oom(rule, oom_run);
  if (!quick && !outside_bounds(request, r) &&
      (pod_age < rule.min_age || change < rule.min_relative_change)) {
    return false;
  }
  // After a quick OOM, only when the resources would change.
  return !(quick && change == 0);
}

}  // namespace tailor::recommender
