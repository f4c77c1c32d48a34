// authorization.k8s.io/v1 SelfSubjectAccessReview: "may I do this?" (kubectl auth can-i).
// tailor-cluster has one user, its administrator, who may do everything, so every well-formed
// review is allowed, as kube-apiserver answers a member of system:masters.
#pragma once

#include <boost/json/fwd.hpp>

#include "kube/http/server.h"

namespace tailor::embedded {

struct RestContext;

// The review with its status filled in; throws StatusError 422 Invalid unless exactly one of
// spec.resourceAttributes and spec.nonResourceAttributes is given.
boost::json::object review_self_access(boost::json::object review);

// POST .../selfsubjectaccessreviews with a JSON or protobuf body: 201 and the answered review.
kube::http::ServerResponse serve_self_subject_access_review(const RestContext& c);

}  // namespace tailor::embedded
