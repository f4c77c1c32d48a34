// rbac.authorization.k8s.io/v1 (Role, ClusterRole, RoleBinding, ClusterRoleBinding) and
// authorization.k8s.io/v1 SubjectAccessReview, every field (k8s.io/api types.go).
#include "embedded/api/known_fields_parts.h"

namespace tailor::embedded::known {

const KnownFields& policy_rule() {
  static const KnownFields f =
      fields({"verbs", "apiGroups", "resources", "resourceNames", "nonResourceURLs"});
  return f;
}

const KnownFields& aggregation_rule() {
  static const KnownFields f = fields({}, {{"clusterRoleSelectors", &label_selector()}});
  return f;
}

const KnownFields& subject() {
  static const KnownFields f = fields({"kind", "apiGroup", "name", "namespace"});
  return f;
}

const KnownFields& role_ref() {
  static const KnownFields f = fields({"apiGroup", "kind", "name"});
  return f;
}

const KnownFields& subject_access_review_spec() {
  static const KnownFields f = [] {
    KnownFields spec = self_subject_access_review_spec();
    for (const char* open : {"user", "groups", "extra", "uid"}) spec.fields.emplace(open, nullptr);
    return spec;
  }();
  return f;
}

}  // namespace tailor::embedded::known
