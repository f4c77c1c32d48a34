#include "embedded/api/known_fields.h"

#include <boost/json.hpp>
#include <type_traits>

#include "embedded/api/known_fields_parts.h"

namespace tailor::embedded {
namespace known {

KnownFields fields(std::initializer_list<std::string_view> open,
                   std::initializer_list<Nested> nested) {
  KnownFields f;
  for (std::string_view name : open) f.fields.emplace(name, nullptr);
  for (const auto& [name, below] : nested) f.fields.insert_or_assign(std::string(name), below);
  return f;
}

KnownFields keyed(KnownFields f, std::initializer_list<ListKey> keys) {
  f.keys.assign(keys.begin(), keys.end());
  return f;
}

const KnownFields& owner_reference() {
  static const KnownFields f =
      fields({"apiVersion", "kind", "name", "uid", "controller", "blockOwnerDeletion"});
  return f;
}

// fieldsV1 is a set of field paths (a map), left open.
const KnownFields& managed_fields_entry() {
  static const KnownFields f = fields(
      {"manager", "operation", "apiVersion", "time", "fieldsType", "fieldsV1", "subresource"});
  return f;
}

const KnownFields& object_meta() {
  static const KnownFields f =
      fields({"name", "generateName", "namespace", "selfLink", "uid", "resourceVersion",
              "generation", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds",
              "labels", "annotations", "finalizers"},
             {{"ownerReferences", &owner_reference()}, {"managedFields", &managed_fields_entry()}});
  return f;
}

const KnownFields& label_selector() {
  static const KnownFields requirement = fields({"key", "operator", "values"});
  static const KnownFields f = fields({"matchLabels"}, {{"matchExpressions", &requirement}});
  return f;
}

const KnownFields& local_object_reference() {
  static const KnownFields f = fields({"name"});
  return f;
}

const KnownFields& condition() {
  static const KnownFields f =
      fields({"type", "status", "observedGeneration", "lastTransitionTime", "reason", "message"});
  return f;
}

}  // namespace known

namespace {

namespace bj = boost::json;
using namespace known;

// A whole object: TypeMeta, ObjectMeta and the kind's own top-level fields.
KnownFields object_of(KnownFields own) {
  own.fields.emplace("apiVersion", nullptr);
  own.fields.emplace("kind", nullptr);
  own.fields.emplace("metadata", &object_meta());
  return own;
}

KnownFields object(std::initializer_list<std::string_view> open,
                   std::initializer_list<Nested> nested = {}) {
  return object_of(fields(open, nested));
}

using Table = std::map<std::string, KnownFields, std::less<>>;

Table kinds() {
  Table t;
  t.emplace("/v1/pods", object({}, {{"spec", &pod_spec()}, {"status", &pod_status()}}));
  t.emplace("/v1/nodes", object({}, {{"spec", &node_spec()}, {"status", &node_status()}}));
  t.emplace("/v1/namespaces",
            object({}, {{"spec", &namespace_spec()}, {"status", &namespace_status()}}));
  t.emplace("/v1/configmaps", object({"data", "binaryData", "immutable"}));
  t.emplace("/v1/secrets", object({"data", "stringData", "type", "immutable"}));
  t.emplace("/v1/services", object({}, {{"spec", &service_spec()}, {"status", &service_status()}}));
  t.emplace("/v1/serviceaccounts", object_of(service_account()));
  t.emplace("/v1/resourcequotas",
            object({}, {{"spec", &resource_quota_spec()}, {"status", &resource_quota_status()}}));
  t.emplace("/v1/limitranges", object({}, {{"spec", &limit_range_spec()}}));
  t.emplace("/v1/events", object_of(event()));
  t.emplace("apps/v1/deployments",
            object({}, {{"spec", &deployment_spec()}, {"status", &deployment_status()}}));
  t.emplace("apps/v1/replicasets",
            object({}, {{"spec", &replica_set_spec()}, {"status", &replica_set_status()}}));
  t.emplace("apps/v1/statefulsets",
            object({}, {{"spec", &stateful_set_spec()}, {"status", &stateful_set_status()}}));
  t.emplace("apps/v1/daemonsets",
            object({}, {{"spec", &daemon_set_spec()}, {"status", &daemon_set_status()}}));
  t.emplace("batch/v1/jobs", object({}, {{"spec", &job_spec()}, {"status", &job_status()}}));
  t.emplace("batch/v1/cronjobs",
            object({}, {{"spec", &cron_job_spec()}, {"status", &cron_job_status()}}));
  t.emplace("autoscaling/v1/horizontalpodautoscalers",
            object({}, {{"spec", &hpa_v1_spec()}, {"status", &hpa_v1_status()}}));
  t.emplace("autoscaling/v2/horizontalpodautoscalers",
            object({}, {{"spec", &hpa_v2_spec()}, {"status", &hpa_v2_status()}}));
  t.emplace("policy/v1/poddisruptionbudgets",
            object({}, {{"spec", &pod_disruption_budget_spec()},
                        {"status", &pod_disruption_budget_status()}}));
  t.emplace("networking.k8s.io/v1/networkpolicies", object({}, {{"spec", &network_policy_spec()}}));
  t.emplace("coordination.k8s.io/v1/leases", object({}, {{"spec", &lease_spec()}}));
  t.emplace("authorization.k8s.io/v1/selfsubjectaccessreviews",
            object({}, {{"spec", &self_subject_access_review_spec()},
                        {"status", &subject_access_review_status()}}));
  t.emplace("authorization.k8s.io/v1/selfsubjectrulesreviews", object({"spec", "status"}));
  t.emplace("authentication.k8s.io/v1/selfsubjectreviews", object({"status"}));
  t.emplace("authorization.k8s.io/v1/subjectaccessreviews",
            object({}, {{"spec", &subject_access_review_spec()},
                        {"status", &subject_access_review_status()}}));
  t.emplace("rbac.authorization.k8s.io/v1/roles", object({}, {{"rules", &policy_rule()}}));
  t.emplace("rbac.authorization.k8s.io/v1/clusterroles",
            object({}, {{"rules", &policy_rule()}, {"aggregationRule", &aggregation_rule()}}));
  for (const char* bindings : {"rolebindings", "clusterrolebindings"}) {
    t.emplace(std::string("rbac.authorization.k8s.io/v1/") + bindings,
              object({}, {{"subjects", &subject()}, {"roleRef", &role_ref()}}));
  }
  // A definition's schema is open-ended (JSONSchemaProps, x-kubernetes-* extensions).
  t.emplace("apiextensions.k8s.io/v1/customresourcedefinitions", object({"spec", "status"}));
  t.emplace("admissionregistration.k8s.io/v1/mutatingwebhookconfigurations",
            object({}, {{"webhooks", &mutating_webhook()}}));
  return t;
}

// Walks `o` against `known`, collecting unknown paths; a non-const object also loses them.
// `path` is one buffer, extended and cut back around each descent: a path string is made only
// for an unknown field (the walk runs on every write of a pod, node agent status patches too).
template <class Object>
void walk(const KnownFields& known, Object& o, std::string& path,
          std::vector<std::string>& unknown);

template <class Value>
void walk_value(const KnownFields& known, Value& v, std::string& path,
                std::vector<std::string>& unknown) {
  if (v.is_object()) {
    walk(known, v.as_object(), path, unknown);
  } else if (v.is_array()) {
    auto& items = v.as_array();
    const std::size_t at = path.size();
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (!items[i].is_object()) continue;
      path.append("[").append(std::to_string(i)).append("]");
      walk(known, items[i].as_object(), path, unknown);
      path.resize(at);
    }
  }
}

template <class Object>
void walk(const KnownFields& known, Object& o, std::string& path,
          std::vector<std::string>& unknown) {
  std::vector<std::string> gone;
  const std::size_t at = path.size();
  for (auto& [key, value] : o) {
    auto it = known.fields.find(std::string_view(key));
    if (it != known.fields.end() && !it->second) continue;
    if (at) path += '.';
    path.append(key.data(), key.size());
    if (it == known.fields.end()) {
      unknown.push_back(path);
      gone.emplace_back(key);
    } else {
      walk_value(*it->second, value, path, unknown);
    }
    path.resize(at);
  }
  if constexpr (!std::is_const_v<Object>) {
    for (const std::string& key : gone) o.erase(key);
  }
}

}  // namespace

const KnownFields* known_fields(const ResourceInfo& r) {
  static const Table kTable = kinds();
  auto it = kTable.find(r.group + "/" + r.version + "/" + r.resource);
  return it == kTable.end() ? nullptr : &it->second;
}

std::vector<std::string> unknown_fields(const KnownFields& known, const bj::object& object) {
  std::vector<std::string> unknown;
  std::string path;
  walk(known, object, path, unknown);
  return unknown;
}

std::vector<std::string> drop_unknown_fields(const KnownFields& known, bj::object& object) {
  std::vector<std::string> unknown;
  std::string path;
  walk(known, object, path, unknown);
  return unknown;
}

}  // namespace tailor::embedded
