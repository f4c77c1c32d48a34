// RBAC's escalation prevention (pkg/registry/rbac): a Role or ClusterRole may be written only by
// someone who holds every permission it grants (or the `escalate` verb on it), and an
// aggregationRule set only by someone who may do everything; a RoleBinding or
// ClusterRoleBinding only by someone who holds every permission of its role (or the `bind` verb
// on it). Otherwise 403: `user "u" (groups=[...]) is attempting to grant RBAC permissions not
// currently held:` and the missing rules, compacted as upstream prints them. Writes that leave
// the rules, subjects and role unchanged (labels, annotations) are not checked, and neither are
// the control loops' own writes.
#pragma once

#include <string>
#include <vector>

#include "embedded/api/extensions.h"
#include "embedded/storage/object_store.h"

namespace tailor::embedded {

// The rules `user` would grant without holding them, in upstream's compact form
// ({APIGroups:["apps"], Resources:["deployments"], Verbs:["delete"]}), sorted.
std::vector<std::string> missing_permissions(const std::vector<PolicyRule>& rules,
                                             const UserInfo& user, const std::string& ns,
                                             const Authorizer& authorize);

AdmissionPlugin rbac_escalation_check(Authorizer authorize, const ObjectStore& store);

}  // namespace tailor::embedded
