// Private to controllers/: status conditions as controllers keep them — lastTransitionTime moves
// only when the status flips.
#pragma once

#include <boost/json.hpp>
#include <optional>
#include <string>

namespace tailor::embedded {

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

// A Job has finished once a Complete or Failed condition is True (upstream's IsJobFinished and
// the CronJob controller's getFinishedStatus): which one, and since when.
struct JobFinished {
  std::string type;                  // "Complete" or "Failed"
  std::string last_transition_time;  // RFC 3339, as the condition carries it
};
std::optional<JobFinished> job_finished(const boost::json::object& job);

}  // namespace tailor::embedded
