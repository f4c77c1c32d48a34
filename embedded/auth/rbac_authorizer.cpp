#include "embedded/auth/rbac_authorizer.h"

#include <algorithm>
#include <boost/json.hpp>

#include "embedded/api/resources.h"
#include "embedded/auth/stored_objects.h"
#include "embedded/storage/object_meta.h"

namespace tailor::embedded {
namespace {

const ResourceInfo& rbac(const char* resource) { return builtin(kRbacGroup, resource); }

// describeSubject: ServiceAccount "name/namespace", otherwise Kind "name".
std::string describe(const Subject& s, const std::string& binding_ns) {
  if (s.kind == "ServiceAccount")
    return s.kind + " \"" + s.name + "/" + (s.ns.empty() ? binding_ns : s.ns) + "\"";
  return s.kind + " \"" + s.name + "\"";
}

struct Search {
  const ObjectStore& store;
  const RequestAttributes& request;
  std::vector<std::string> errors{};
  std::string allowed_by{};

  // The rules of the role a binding refers to; an error noted when it is missing.
  std::vector<PolicyRule> role_rules(const std::string& kind, const std::string& name,
                                     const std::string& binding_ns) {
    const bool cluster = kind == "ClusterRole";
    const ResourceInfo& r = rbac(cluster ? "clusterroles" : "roles");
    ObjectPtr role = find_object(store, r, cluster ? "" : binding_ns, name);
    if (!role) {
      errors.push_back(std::string(cluster ? "clusterrole" : "role") + "." + kRbacGroup + " \"" +
                       name + "\" not found");
      return {};
    }
    return rules_of(*role);
  }

  // Whether the binding applies to the user and its role allows the request.
  bool visit(const bj::object& binding, bool cluster_binding) {
    const std::string ns = cluster_binding ? "" : meta_string(binding, "namespace");
    std::vector<Subject> subjects = subjects_of(binding);
    auto subject = std::find_if(subjects.begin(), subjects.end(), [&](const Subject& s) {
      return subject_applies(s, request.user, ns);
    });
    if (subject == subjects.end()) return false;
    const std::string kind = string_at(binding, "roleRef.kind");
    if (cluster_binding && kind != "ClusterRole") return false;
    std::vector<PolicyRule> rules = role_rules(kind, string_at(binding, "roleRef.name"), ns);
    if (std::none_of(rules.begin(), rules.end(),
                     [&](const PolicyRule& rule) { return rule_allows(request, rule); }))
      return false;
    const std::string name = meta_string(binding, "name");
    allowed_by = std::string(cluster_binding ? "ClusterRoleBinding \"" + name + "\""
                                             : "RoleBinding \"" + name + "/" + ns + "\"") +
                 " of " + kind + " \"" + string_at(binding, "roleRef.name") + "\" to " +
                 describe(*subject, ns);
    return true;
  }

  bool any(const std::vector<ObjectPtr>& bindings, bool cluster) {
    return std::any_of(bindings.begin(), bindings.end(),
                       [&](const ObjectPtr& b) { return visit(*b, cluster); });
  }

  // utilerrors.NewAggregate's text: one error alone, several in brackets.
  std::string error_text() const {
    if (errors.size() == 1) return errors[0];
    std::string out = "[";
    for (std::size_t i = 0; i < errors.size(); ++i) out += (i ? ", " : "") + errors[i];
    return out + "]";
  }
};

bool privileged(const UserInfo& user) {
  return std::find(user.groups.begin(), user.groups.end(), kSystemMasters) != user.groups.end();
}

}  // namespace

AuthorizationDecision authorize_rbac(const ObjectStore& store, const RequestAttributes& request) {
  if (privileged(request.user)) return {true, ""};
  Search search{store, request};
  if (search.any(store.list_objects(rbac("clusterrolebindings"), ""), true) ||
      (!request.ns.empty() &&
       search.any(store.list_objects(rbac("rolebindings"), request.ns), false)))
    return {true, "RBAC: allowed by " + search.allowed_by};
  return {false, search.errors.empty() ? "" : "RBAC: " + search.error_text()};
}

}  // namespace tailor::embedded
