#include "embedded/controllers/pod_failure_policy.h"

#include <boost/json.hpp>
#include <optional>

#include "embedded/controllers/conditions.h"
#include "embedded/controllers/objects.h"
#include "embedded/storage/object_meta.h"

namespace tailor::embedded {
namespace {

std::optional<PodFailureAction> action_of(const std::string& action) {
  if (action == "Ignore") return PodFailureAction::Ignore;
  if (action == "FailJob") return PodFailureAction::FailJob;
  if (action == "Count") return PodFailureAction::Count;
  return std::nullopt;  // FailIndex (backoffLimitPerIndex) and unknown actions: skipped
}

bool contains(const bj::value* values, std::int64_t code) {
  if (!values || !values->is_array()) return false;
  for (const bj::value& v : values->as_array()) {
    if (v.is_int64() && v.as_int64() == code) return true;
  }
  return false;
}

// The first terminated container (init containers first) whose non-zero exit code the
// requirement matches: "Container <name> ... failed with exit code <code>".
std::optional<std::string> exit_code_match(const bj::object& requirement, const bj::object& pod) {
  std::string only = string_at(requirement, "containerName");
  bool in = string_at(requirement, "operator") == "In";
  const bj::value* values = requirement.if_contains("values");
  for (const char* list : {"status.initContainerStatuses", "status.containerStatuses"}) {
    const bj::value* statuses = find_path(pod, list);
    if (!statuses || !statuses->is_array()) continue;
    for (const bj::value& s : statuses->as_array()) {
      if (!s.is_object()) continue;
      std::string name = string_at(s.as_object(), "name");
      const bj::value* code = find_path(s.as_object(), "state.terminated.exitCode");
      if (!code || !code->is_int64() || code->as_int64() == 0) continue;
      if (!only.empty() && name != only) continue;
      if (contains(values, code->as_int64()) == in) {
        return "Container " + name + " for pod " + key_of(pod) + " failed with exit code " +
               std::to_string(code->as_int64());
      }
    }
  }
  return std::nullopt;
}

// "Pod <ns>/<name> has condition <type>" for the first pattern a pod condition matches.
std::optional<std::string> condition_match(const bj::value& patterns, const bj::object& pod) {
  const bj::value* conditions = find_path(pod, "status.conditions");
  if (!patterns.is_array() || !conditions || !conditions->is_array()) return std::nullopt;
  for (const bj::value& p : patterns.as_array()) {
    if (!p.is_object()) continue;
    std::string type = string_at(p.as_object(), "type");
    std::string status = string_at(p.as_object(), "status");
    if (status.empty()) status = "True";
    if (condition_status(pod, type) == status) {
      return "Pod " + key_of(pod) + " has condition " + type;
    }
  }
  return std::nullopt;
}

}  // namespace

PodFailureMatch match_pod_failure_policy(const bj::object& policy, const bj::object& pod) {
  const bj::value* rules = policy.if_contains("rules");
  if (!rules || !rules->is_array()) return {};
  const bj::array& list = rules->as_array();
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (!list[i].is_object()) continue;
    const bj::object& rule = list[i].as_object();
    std::string action_name = string_at(rule, "action");
    std::optional<PodFailureAction> action = action_of(action_name);
    if (!action) continue;
    std::optional<std::string> why;
    if (const bj::value* codes = rule.if_contains("onExitCodes"); codes && codes->is_object()) {
      why = exit_code_match(codes->as_object(), pod);
    } else if (const bj::value* patterns = rule.if_contains("onPodConditions")) {
      why = condition_match(*patterns, pod);
    }
    if (why) {
      return {*action, *why + " matching " + action_name + " rule at index " + std::to_string(i)};
    }
  }
  return {};
}

}  // namespace tailor::embedded
