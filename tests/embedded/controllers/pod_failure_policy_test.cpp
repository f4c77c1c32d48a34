// A Job's podFailurePolicy on one failed pod (upstream's matchPodFailurePolicy): first matching
// rule wins, with the Job condition's message naming the pod and the rule.
#include "embedded/controllers/pod_failure_policy.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace tailor::embedded {
namespace {

namespace bj = boost::json;

constexpr const char* kPod = R"({"metadata":{"namespace":"default","name":"p"},"status":{
  "phase":"Failed",
  "conditions":[{"type":"DisruptionTarget","status":"True"},{"type":"Ready","status":"False"}],
  "initContainerStatuses":[{"name":"init","state":{"terminated":{"exitCode":0}}}],
  "containerStatuses":[{"name":"main","state":{"terminated":{"exitCode":42}}},
                       {"name":"side","state":{"terminated":{"exitCode":1}}}]}})";

struct Case {
  const char* what;
  const char* rules;
  PodFailureAction action;
  const char* message;
};

TEST(PodFailurePolicy, FirstMatchingRuleDecides) {
  const Case cases[] = {
      {"no rules", "[]", PodFailureAction::Count, ""},
      {"exit code In",
       R"([{"action":"FailJob","onExitCodes":{"containerName":"main","operator":"In","values":[42]}}])",
       PodFailureAction::FailJob,
       "Container main for pod default/p failed with exit code 42 matching FailJob rule at index "
       "0"},
      {"exit code In, any container: the first that matches",
       R"([{"action":"FailJob","onExitCodes":{"operator":"In","values":[1]}}])",
       PodFailureAction::FailJob,
       "Container side for pod default/p failed with exit code 1 matching FailJob rule at index "
       "0"},
      {"exit code NotIn never matches 0 (init ran fine)",
       R"([{"action":"Ignore","onExitCodes":{"containerName":"init","operator":"NotIn","values":[5]}}])",
       PodFailureAction::Count, ""},
      {"exit code not matched, then a condition",
       R"([{"action":"FailJob","onExitCodes":{"operator":"In","values":[7]}},
           {"action":"Ignore","onPodConditions":[{"type":"DisruptionTarget"}]}])",
       PodFailureAction::Ignore,
       "Pod default/p has condition DisruptionTarget matching Ignore rule at index 1"},
      {"condition status must match",
       R"([{"action":"Ignore","onPodConditions":[{"type":"Ready","status":"True"}]}])",
       PodFailureAction::Count, ""},
      {"unknown and FailIndex actions are skipped",
       R"([{"action":"Retry","onPodConditions":[{"type":"DisruptionTarget"}]},
           {"action":"FailIndex","onPodConditions":[{"type":"DisruptionTarget"}]},
           {"action":"Count","onPodConditions":[{"type":"DisruptionTarget"}]}])",
       PodFailureAction::Count,
       "Pod default/p has condition DisruptionTarget matching Count rule at index 2"},
  };
  bj::object pod = bj::parse(kPod).as_object();
  for (const Case& c : cases) {
    bj::object policy{{"rules", bj::parse(c.rules)}};
    PodFailureMatch m = match_pod_failure_policy(policy, pod);
    EXPECT_EQ(m.action, c.action) << c.what;
    EXPECT_EQ(m.message, c.message) << c.what;
  }
}

}  // namespace
}  // namespace tailor::embedded
