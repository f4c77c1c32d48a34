#include "recommender/cpu_rule.h"

#include <algorithm>

namespace tailor::recommender {

double next_cpu_request(const CpuRule& rule, double request, double target, double last_usage,
                        bool holding) {
  // What the last window needed: a request is never lowered below it, so a burst is given back
  // when it is over, and a new level is kept until the level has caught up with it.
  const double needed = std::max(target, last_usage * (1 + rule.burst_margin));
  if (last_usage > request * (1 + rule.burst_threshold)) return needed;
  if (target > request * (1 + rule.up_threshold)) return target;
  if (needed < request * (1 - rule.down_threshold) && !holding) return needed;
  return request;
}

}  // namespace tailor::recommender
