// Private to controllers/: a Job's podFailurePolicy applied to one failed pod, as upstream's
// matchPodFailurePolicy does: the first rule whose onExitCodes or onPodConditions match decides
// (rules with unknown actions are skipped); no match counts the failure.
#pragma once

#include <boost/json/fwd.hpp>
#include <string>

namespace tailor::embedded {

enum class PodFailureAction { Count, Ignore, FailJob };

struct PodFailureMatch {
  PodFailureAction action = PodFailureAction::Count;
  std::string message{};  // for FailJob: the Job's condition message
};

PodFailureMatch match_pod_failure_policy(const boost::json::object& policy,
                                         const boost::json::object& pod);

}  // namespace tailor::embedded
