// Quota scopes of the pod evaluator (MatchingScopes): which pods a scoped quota counts.
#include <algorithm>
#include <boost/json.hpp>

#include "embedded/api/pod_qos.h"
#include "embedded/quota/quota.h"
#include "embedded/resize/resource_json.h"
#include "embedded/storage/object_meta.h"

namespace tailor::embedded {
namespace {

struct ScopeRequirement {
  std::string scope;
  std::string op;  // In, NotIn, Exists, DoesNotExist
  std::vector<std::string> values;
};

std::vector<ScopeRequirement> requirements(const bj::object& quota) {
  std::vector<ScopeRequirement> out;
  if (const bj::value* scopes = find_path(quota, "spec.scopes"); scopes && scopes->is_array()) {
    for (const bj::value& s : scopes->as_array()) {
      if (s.is_string()) out.push_back({std::string(s.as_string()), "Exists", {}});
    }
  }
  const bj::value* exprs = find_path(quota, "spec.scopeSelector.matchExpressions");
  if (!exprs || !exprs->is_array()) return out;
  for (const bj::value& e : exprs->as_array()) {
    ScopeRequirement r{string_at(e, "scopeName"), string_at(e, "operator"), {}};
    if (const bj::value* v = member(&e, "values"); v && v->is_array()) {
      for (const bj::value& x : v->as_array()) {
        if (x.is_string()) r.values.emplace_back(x.as_string());
      }
    }
    out.push_back(std::move(r));
  }
  return out;
}

bool terminating(const bj::object& pod) {
  const bj::value* d = find_path(pod, "spec.activeDeadlineSeconds");
  return d && d->is_number() && d->to_number<double>() >= 0;
}

bool best_effort(const bj::object& pod) {
  std::string qos = string_at(pod, "status.qosClass");
  return (qos.empty() ? pod_qos_class(pod) : qos) == "BestEffort";
}

bool priority_class_matches(const ScopeRequirement& r, const bj::object& pod) {
  std::string name = string_at(pod, "spec.priorityClassName");
  bool listed = std::find(r.values.begin(), r.values.end(), name) != r.values.end();
  if (r.op == "In") return listed;
  if (r.op == "NotIn") return !listed;
  if (r.op == "Exists") return !name.empty();
  if (r.op == "DoesNotExist") return name.empty();
  return false;
}

bool matches(const ScopeRequirement& r, const bj::object& pod) {
  bool negate = r.op == "DoesNotExist";
  if (r.scope == "Terminating") return terminating(pod) != negate;
  if (r.scope == "NotTerminating") return !terminating(pod) != negate;
  if (r.scope == "BestEffort") return best_effort(pod) != negate;
  if (r.scope == "NotBestEffort") return !best_effort(pod) != negate;
  if (r.scope == "PriorityClass") return priority_class_matches(r, pod);
  return false;  // scopes pods are never in (CrossNamespacePodAffinity is not served)
}

}  // namespace

bool quota_selects(const bj::object& quota, const bj::object& pod) {
  for (const ScopeRequirement& r : requirements(quota)) {
    if (!matches(r, pod)) return false;
  }
  return true;
}

}  // namespace tailor::embedded
