// authorization.k8s.io/v1 SelfSubjectAccessReview ("may I do this?", kubectl auth can-i) and
// SubjectAccessReview ("may this user do this?"), answered by the cluster's authorizer;
// authentication.k8s.io/v1 SelfSubjectReview ("who am I?", kubectl auth whoami).
#pragma once

#include <boost/json/fwd.hpp>

#include "embedded/api/extensions.h"
#include "kube/http/server.h"

namespace tailor::embedded {

struct RestContext;

// The review with its status filled in by `authorize` for `user` (the requester for a
// SelfSubjectAccessReview, spec.user/groups/uid/extra for a SubjectAccessReview); throws
// StatusError 422 Invalid unless exactly one of spec.resourceAttributes and
// spec.nonResourceAttributes is given (and, for a SubjectAccessReview, a user or a group).
boost::json::object review_self_access(boost::json::object review, const UserInfo& user,
                                       const Authorizer& authorize);
boost::json::object review_subject_access(boost::json::object review, const Authorizer& authorize);

// POST .../selfsubjectaccessreviews and .../subjectaccessreviews with a JSON or protobuf body:
// 201 and the answered review.
kube::http::ServerResponse serve_self_subject_access_review(const RestContext& c);
kube::http::ServerResponse serve_subject_access_review(const RestContext& c);
kube::http::ServerResponse serve_self_subject_review(const RestContext& c);

// The body of a POSTed review: POST to the collection only (else 405), its apiVersion the
// resource's (else 400).
boost::json::object review_body(const RestContext& c);

// The review's status.userInfo as the authenticator saw the requester.
boost::json::object user_info_json(const UserInfo& user);

}  // namespace tailor::embedded
