#include <memory>
#include <stdexcept>

#include "embedded/api/resources.h"
#include "embedded/auth/access_review.h"
#include "embedded/auth/audit_log.h"
#include "embedded/auth/authenticator.h"
#include "embedded/auth/escalation.h"
#include "embedded/auth/rbac_authorizer.h"
#include "embedded/auth/rules_review.h"
#include "embedded/auth/service_account_admission.h"
#include "embedded/auth/stored_objects.h"
#include "embedded/auth/token_request.h"
#include "embedded/server/features.h"

namespace tailor::embedded {

void add_access_reviews(ApiExtensions& extensions) {
  // Virtual resources: their handlers are keyed with an empty subresource.
  extensions
      .handlers[subresource_key(builtin("authorization.k8s.io", "selfsubjectaccessreviews"), "")] =
      serve_self_subject_access_review;
  extensions
      .handlers[subresource_key(builtin("authorization.k8s.io", "subjectaccessreviews"), "")] =
      serve_subject_access_review;
  extensions.handlers[subresource_key(builtin("authentication.k8s.io", "selfsubjectreviews"), "")] =
      serve_self_subject_review;
}

void add_authentication_and_rbac(ApiExtensions& extensions, ObjectStore& store,
                                 AuthenticatorOptions options) {
  const TokenIssuer issuer{options.signing_key, options.issuer, options.audiences};
  extensions.handlers["serviceaccounts/token"] = token_request_handler(issuer);
  extensions.mutating.push_back(service_account_admission(store));
  extensions.authenticate = [&store, options](const kube::http::ServerRequest& request) {
    return authenticate(store, options, request);
  };
  auto rbac = std::make_shared<const RbacAuthorizer>(store);
  extensions
      .handlers[subresource_key(builtin("authorization.k8s.io", "selfsubjectrulesreviews"), "")] =
      self_subject_rules_review_handler(rbac);
  extensions.authorize = [rbac](const RequestAttributes& request) {
    return rbac->authorize(request);
  };
  extensions.validating.push_back(rbac_escalation_check(extensions.authorize, store));
}

void add_audit_log(ApiExtensions& extensions, const std::string& path) {
  auto log = std::make_shared<AuditLog>(path);
  extensions.record_decision = [log](const kube::http::ServerRequest& request,
                                     const RequestAttributes& attributes,
                                     const AuthorizationDecision& decision) {
    log->record({.method = request.method,
                 .request_uri = request.target,
                 .received = std::chrono::system_clock::now()},
                attributes, decision);
  };
}

}  // namespace tailor::embedded
