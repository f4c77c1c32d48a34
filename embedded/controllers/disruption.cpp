#include "embedded/controllers/disruption.h"

#include <algorithm>
#include <boost/json.hpp>
#include <stdexcept>

#include "embedded/controllers/rollout.h"

namespace tailor::embedded {
namespace {

std::int64_t scale_or_throw(const BudgetInputs& in) {
  if (!in.controller_scale) {
    throw std::invalid_argument("found no controllers for the pods the budget selects");
  }
  return *in.controller_scale;
}

}  // namespace

BudgetNumbers budget_numbers(const BudgetInputs& in) {
  BudgetNumbers out;
  if (in.max_unavailable && !in.max_unavailable->is_null()) {
    out.expected_pods = scale_or_throw(in);
    std::int64_t max_unavailable =
        resolve_int_or_percent(*in.max_unavailable, out.expected_pods, true, "spec.maxUnavailable");
    out.desired_healthy = std::max<std::int64_t>(0, out.expected_pods - max_unavailable);
  } else if (in.min_available && in.min_available->is_string()) {
    out.expected_pods = scale_or_throw(in);
    out.desired_healthy =
        resolve_int_or_percent(*in.min_available, out.expected_pods, true, "spec.minAvailable");
  } else if (in.min_available && !in.min_available->is_null()) {
    out.expected_pods = in.matching_pods;
    out.desired_healthy =
        resolve_int_or_percent(*in.min_available, out.expected_pods, true, "spec.minAvailable");
  }  // neither: nothing is expected and no disruption is allowed
  std::int64_t allowed = in.current_healthy - out.desired_healthy;
  out.disruptions_allowed = out.expected_pods <= 0 || allowed <= 0 ? 0 : allowed;
  return out;
}

}  // namespace tailor::embedded
