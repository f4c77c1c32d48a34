#include "recommender/vpa_estimator.h"

#include <algorithm>
#include <cmath>

namespace tailor::recommender {
namespace {
// VPA's ResourceAmount: an int64 of millicores or bytes, truncated, capped at 1e14.
constexpr double kMaxAmount = 1e14;
double to_amount(double units) {
  if (!(units > 0)) return 0;
  return std::min(std::floor(units), kMaxAmount);
}

struct Estimate {
  double cpu_millis;
  double memory_bytes;
};

Estimate percentile_with_margin(const VpaContainerModel& model, double cpu_p, double mem_p,
                                const VpaEstimatorConfig& c) {
  Estimate e{to_amount(model.cpu().percentile(cpu_p) * 1000.0),
             to_amount(model.memory_peaks().percentile(mem_p))};
  e.cpu_millis += to_amount(e.cpu_millis * c.cpu_safety_margin);
  e.memory_bytes += to_amount(e.memory_bytes * c.memory_safety_margin);
  return e;
}

Estimate scaled(Estimate e, double factor) {
  return {to_amount(e.cpu_millis * factor), to_amount(e.memory_bytes * factor)};
}

Resources with_min(Estimate e, const VpaEstimatorConfig& c) {
  const double fraction = 1.0 / std::max(1, c.containers_in_pod);
  const double min_millis = to_amount(c.min_resources.cpu_cores * 1000.0 * fraction);
  const double min_bytes = to_amount(c.min_resources.memory_bytes * fraction);
  return {std::max(e.cpu_millis, min_millis) / 1000.0, std::max(e.memory_bytes, min_bytes)};
}
}  // namespace

double confidence_scale(double confidence, double multiplier, double exponent) {
  return std::pow(1.0 + multiplier / confidence, exponent);
}

Recommendation vpa_recommend(const VpaContainerModel& model, const VpaEstimatorConfig& c) {
  const double confidence = model.confidence();
  const Estimate target =
      percentile_with_margin(model, c.cpu_target_percentile, c.memory_target_percentile, c);
  const Estimate lower = scaled(
      percentile_with_margin(model, c.cpu_lower_percentile, c.memory_lower_percentile, c),
      confidence_scale(confidence, c.lower_confidence_multiplier, c.lower_confidence_exponent));
  const Estimate upper = scaled(
      percentile_with_margin(model, c.cpu_upper_percentile, c.memory_upper_percentile, c),
      confidence_scale(confidence, c.upper_confidence_multiplier, c.upper_confidence_exponent));
  Recommendation r;
  r.target = with_min(target, c);
  r.lower_bound = with_min(lower, c);
  r.upper_bound = with_min(upper, c);
  r.uncapped_target = r.target;
  return r;
}

}  // namespace tailor::recommender
