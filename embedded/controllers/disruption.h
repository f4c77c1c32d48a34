// PodDisruptionBudget arithmetic as the disruption controller does it (pure functions).
#pragma once

#include <boost/json/fwd.hpp>
#include <cstdint>
#include <optional>
#include <string>

namespace tailor::embedded {

struct BudgetInputs {
  const boost::json::value* min_available = nullptr;    // spec.minAvailable, or null
  const boost::json::value* max_unavailable = nullptr;  // spec.maxUnavailable, or null
  std::int64_t matching_pods = 0;                       // pods the selector picks
  // Σ replicas of the pods' controllers; nullopt when some pod has none (percentages and
  // maxUnavailable then cannot be resolved).
  std::optional<std::int64_t> controller_scale;
  std::int64_t current_healthy = 0;
};

struct BudgetNumbers {
  std::int64_t expected_pods = 0;
  std::int64_t desired_healthy = 0;
  std::int64_t disruptions_allowed = 0;
};

// Throws std::invalid_argument when the budget cannot be computed (the controller then reports
// SyncFailed with the message).
BudgetNumbers budget_numbers(const BudgetInputs& in);

}  // namespace tailor::embedded
