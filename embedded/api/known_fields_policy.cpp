// The other core/v1 kinds (Namespace, Event, ServiceAccount, ResourceQuota, LimitRange) and
// policy/v1 PodDisruptionBudgets, networking.k8s.io/v1 NetworkPolicies, coordination Leases,
// SelfSubjectAccessReviews and MutatingWebhookConfigurations, every field (k8s.io/api types.go).
#include "embedded/api/known_fields_parts.h"

namespace tailor::embedded::known {
namespace {

const KnownFields& event_source() {
  static const KnownFields f = fields({"component", "host"});
  return f;
}

const KnownFields& event_series() {
  static const KnownFields f = fields({"count", "lastObservedTime"});
  return f;
}

const KnownFields& scope_selector() {
  static const KnownFields requirement = fields({"scopeName", "operator", "values"});
  static const KnownFields f = fields({}, {{"matchExpressions", &requirement}});
  return f;
}

const KnownFields& limit_range_item() {
  static const KnownFields f =
      fields({"type", "max", "min", "default", "defaultRequest", "maxLimitRequestRatio"});
  return f;
}

const KnownFields& namespace_condition() {
  static const KnownFields f =
      fields({"type", "status", "lastTransitionTime", "reason", "message"});
  return f;
}

// fieldSelector and labelSelector (their raw selectors and requirements) are left open.
const KnownFields& resource_attributes() {
  static const KnownFields f = fields({"namespace", "verb", "group", "version", "resource",
                                       "subresource", "name", "fieldSelector", "labelSelector"});
  return f;
}

const KnownFields& webhook_client_config() {
  static const KnownFields service = fields({"namespace", "name", "path", "port"});
  static const KnownFields f = fields({"url", "caBundle"}, {{"service", &service}});
  return f;
}

const KnownFields& rule_with_operations() {
  static const KnownFields f =
      fields({"operations", "apiGroups", "apiVersions", "resources", "scope"});
  return f;
}

const KnownFields& match_condition() {
  static const KnownFields f = fields({"name", "expression"});
  return f;
}

const KnownFields& object_reference() {
  static const KnownFields f =
      fields({"kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath"});
  return f;
}

}  // namespace

KnownFields event() {
  return fields({"reason", "message", "firstTimestamp", "lastTimestamp", "count", "type",
                 "eventTime", "action", "reportingComponent", "reportingInstance"},
                {{"involvedObject", &object_reference()},
                 {"source", &event_source()},
                 {"series", &event_series()},
                 {"related", &object_reference()}});
}

KnownFields service_account() {
  return fields(
      {"automountServiceAccountToken"},
      {{"secrets", &object_reference()}, {"imagePullSecrets", &local_object_reference()}});
}

const KnownFields& namespace_spec() {
  static const KnownFields f = fields({"finalizers"});
  return f;
}

const KnownFields& namespace_status() {
  static const KnownFields f = fields({"phase"}, {{"conditions", &namespace_condition()}});
  return f;
}

const KnownFields& resource_quota_spec() {
  static const KnownFields f = fields({"hard", "scopes"}, {{"scopeSelector", &scope_selector()}});
  return f;
}

const KnownFields& resource_quota_status() {
  static const KnownFields f = fields({"hard", "used"});
  return f;
}

const KnownFields& limit_range_spec() {
  static const KnownFields f = fields({}, {{"limits", &limit_range_item()}});
  return f;
}

const KnownFields& pod_disruption_budget_spec() {
  static const KnownFields f =
      fields({"minAvailable", "maxUnavailable", "unhealthyPodEvictionPolicy"},
             {{"selector", &label_selector()}});
  return f;
}

const KnownFields& network_policy_spec() {
  static const KnownFields ip_block = fields({"cidr", "except"});
  static const KnownFields peer = fields({}, {{"podSelector", &label_selector()},
                                              {"namespaceSelector", &label_selector()},
                                              {"ipBlock", &ip_block}});
  static const KnownFields port = fields({"protocol", "port", "endPort"});
  static const KnownFields ingress = fields({}, {{"ports", &port}, {"from", &peer}});
  static const KnownFields egress = fields({}, {{"ports", &port}, {"to", &peer}});
  static const KnownFields f =
      fields({"policyTypes"},
             {{"podSelector", &label_selector()}, {"ingress", &ingress}, {"egress", &egress}});
  return f;
}

// disruptedPods is a map of pod names to times.
const KnownFields& pod_disruption_budget_status() {
  static const KnownFields f = fields({"observedGeneration", "disruptedPods", "disruptionsAllowed",
                                       "currentHealthy", "desiredHealthy", "expectedPods"},
                                      {{"conditions", &condition()}});
  return f;
}

const KnownFields& lease_spec() {
  static const KnownFields f =
      fields({"holderIdentity", "leaseDurationSeconds", "acquireTime", "renewTime",
              "leaseTransitions", "strategy", "preferredHolder"});
  return f;
}

const KnownFields& self_subject_access_review_spec() {
  static const KnownFields non_resource = fields({"path", "verb"});
  static const KnownFields f = fields({}, {{"resourceAttributes", &resource_attributes()},
                                           {"nonResourceAttributes", &non_resource}});
  return f;
}

const KnownFields& subject_access_review_status() {
  static const KnownFields f = fields({"allowed", "denied", "reason", "evaluationError"});
  return f;
}

const KnownFields& mutating_webhook() {
  static const KnownFields f =
      fields({"name", "failurePolicy", "matchPolicy", "sideEffects", "timeoutSeconds",
              "admissionReviewVersions", "reinvocationPolicy"},
             {{"clientConfig", &webhook_client_config()},
              {"rules", &rule_with_operations()},
              {"namespaceSelector", &label_selector()},
              {"objectSelector", &label_selector()},
              {"matchConditions", &match_condition()}});
  return f;
}

}  // namespace tailor::embedded::known
