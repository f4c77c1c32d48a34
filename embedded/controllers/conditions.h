// Private to controllers/: status conditions as controllers keep them — lastTransitionTime moves
// only when the status flips.
#pragma once

#include <boost/json.hpp>
#include <string>

namespace tailor::kube::embedded {

struct Condition {
  std::string type, status, reason, message;
};

enum class ConditionStyle {
  Pod,         // lastProbeTime: null, lastTransitionTime
  Deployment,  // lastUpdateTime (moves when reason/message change), lastTransitionTime
  Meta,        // metav1.Condition: observedGeneration, lastTransitionTime
};

// Sets the condition in status.conditions (status created when absent). Returns whether
// anything changed.
bool set_condition(boost::json::object& object, const Condition& condition, ConditionStyle style,
                   const std::string& now, std::int64_t observed_generation = 0);
// The condition's status ("True", ...), "" when absent.
std::string condition_status(const boost::json::object& object, const std::string& type);

}  // namespace tailor::kube::embedded
