// RBAC over the store (plugin/pkg/auth/authorizer/rbac): members of system:masters may do
// everything (kube-apiserver's privileged-group authorizer, ahead of RBAC); otherwise a request
// is allowed when a rule of a role bound to the user allows it — ClusterRoleBindings everywhere,
// RoleBindings (to a Role of their namespace or to a ClusterRole) in their namespace. Bindings and
// roles are read from the store at each request (so a change counts at once), each revision
// parsed once: parsed subjects and rules are kept by object and resourceVersion.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "embedded/auth/rbac_rules.h"
#include "embedded/storage/object_store.h"

namespace tailor::embedded {

class RbacAuthorizer {
 public:
  explicit RbacAuthorizer(const ObjectStore& store) : store_(store) {}
  AuthorizationDecision authorize(const RequestAttributes& request) const;

  // RulesFor (SelfSubjectRulesReview): every rule of every role bound to the user cluster-wide or
  // in `ns`; errors name the bindings whose role is missing. system:masters: "*" for everything.
  struct UserRules {
    std::vector<PolicyRule> rules;
    std::vector<std::string> errors;
  };
  UserRules rules_for(const UserInfo& user, const std::string& ns) const;

  struct Binding {
    std::string name, ns, role_kind, role_name;
    std::vector<Subject> subjects;
  };
  using Rules = std::vector<PolicyRule>;

  // The parsed revision (kept for the next request), or parsed now and kept.
  std::shared_ptr<const Binding> binding(const StoredObject& stored) const;
  // The rules of the role; null when there is no such role.
  std::shared_ptr<const Rules> role_rules(const std::string& kind, const std::string& name,
                                          const std::string& ns) const;
  std::vector<StoredPtr> bindings(bool cluster, const std::string& ns) const;

 private:
  template <class T>
  using Parsed = std::map<std::string, std::pair<std::uint64_t, std::shared_ptr<const T>>>;

  const ObjectStore& store_;
  mutable std::mutex mu_;
  mutable Parsed<Binding> bindings_;
  mutable Parsed<Rules> roles_;
};

}  // namespace tailor::embedded
