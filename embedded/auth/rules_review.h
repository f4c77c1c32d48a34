// authorization.k8s.io/v1 SelfSubjectRulesReview ("what may I do in this namespace?", what
// `kubectl auth can-i --list` asks): the rules RBAC gives the requester, cluster-wide and in
// spec.namespace, split as Kubernetes splits them into resourceRules and nonResourceRules;
// `incomplete` with the evaluationError when a binding names a missing role.
#pragma once

#include <boost/json/fwd.hpp>
#include <memory>

#include "embedded/api/extensions.h"
#include "embedded/auth/rbac_authorizer.h"

namespace tailor::embedded {

// The review with its status filled in from the user's rules (pure).
boost::json::object review_self_rules(boost::json::object review,
                                      const RbacAuthorizer::UserRules& rules);

// POST .../selfsubjectrulesreviews: 201 and the answered review.
SubresourceHandler self_subject_rules_review_handler(std::shared_ptr<const RbacAuthorizer> rbac);

}  // namespace tailor::embedded
