// RBAC over the store (plugin/pkg/auth/authorizer/rbac): members of system:masters may do
// everything (kube-apiserver's privileged-group authorizer, ahead of RBAC); otherwise a request
// is allowed when a rule of a role bound to the user allows it — ClusterRoleBindings everywhere,
// RoleBindings (to a Role of their namespace or to a ClusterRole) in their namespace.
#pragma once

#include "embedded/auth/rbac_rules.h"
#include "embedded/storage/object_store.h"

namespace tailor::embedded {

AuthorizationDecision authorize_rbac(const ObjectStore& store, const RequestAttributes& request);

}  // namespace tailor::embedded
