// Impersonation (Impersonate-User, Impersonate-Group, Impersonate-Uid headers; kubectl --as,
// --as-group, --as-uid): the request acts as the named user when its sender may `impersonate`
// each of them — users (or serviceaccounts, for system:serviceaccount:<ns>:<name>), groups and
// uids (authentication.k8s.io) — else 403 as kube-apiserver words it. The impersonated user is
// in system:authenticated, and a ServiceAccount in its groups when no group is named.
#pragma once

#include <functional>

#include "embedded/auth/rbac_rules.h"
#include "kube/http/server.h"

namespace tailor::embedded {

UserInfo impersonate(
    UserInfo sender, const kube::http::ServerRequest& request,
    const std::function<AuthorizationDecision(const RequestAttributes&)>& authorize);

}  // namespace tailor::embedded
