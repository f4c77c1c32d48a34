#include "embedded/api/known_fields.h"

#include <boost/json.hpp>
#include <initializer_list>
#include <string_view>
#include <type_traits>
#include <utility>

namespace tailor::kube::embedded {
namespace {

namespace bj = boost::json;

using Nested = std::pair<std::string_view, const KnownFields*>;

KnownFields fields(std::initializer_list<std::string_view> open,
                   std::initializer_list<Nested> nested = {}) {
  KnownFields f;
  for (std::string_view name : open) f.fields.emplace(name, nullptr);
  for (const auto& [name, below] : nested) f.fields.insert_or_assign(std::string(name), below);
  return f;
}

const KnownFields& object_meta() {
  static const KnownFields f =
      fields({"name", "generateName", "namespace", "selfLink", "uid", "resourceVersion",
              "generation", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds",
              "labels", "annotations", "ownerReferences", "finalizers", "managedFields"});
  return f;
}

// A whole object: TypeMeta, ObjectMeta and the kind's own top-level fields.
KnownFields object(std::initializer_list<std::string_view> open,
                   std::initializer_list<Nested> nested = {}) {
  KnownFields f = fields(open, nested);
  f.fields.emplace("apiVersion", nullptr);
  f.fields.emplace("kind", nullptr);
  f.fields.emplace("metadata", &object_meta());
  return f;
}

// ---- core/v1 Pod

// What an autoscaler's users write most: requests and limits (a typo there must not vanish).
const KnownFields& resource_requirements() {
  static const KnownFields f = fields({"limits", "requests", "claims"});
  return f;
}

const KnownFields& container_port() {
  static const KnownFields f = fields({"name", "hostPort", "containerPort", "protocol", "hostIP"});
  return f;
}

const KnownFields& env_var() {
  static const KnownFields f = fields({"name", "value", "valueFrom"});
  return f;
}

const KnownFields& volume_mount() {
  static const KnownFields f = fields({"name", "readOnly", "recursiveReadOnly", "mountPath",
                                       "subPath", "mountPropagation", "subPathExpr"});
  return f;
}

const KnownFields& probe() {
  static const KnownFields f = fields(
      {"exec", "httpGet", "tcpSocket", "grpc", "initialDelaySeconds", "timeoutSeconds",
       "periodSeconds", "successThreshold", "failureThreshold", "terminationGracePeriodSeconds"});
  return f;
}

const KnownFields& resize_policy() {
  static const KnownFields f = fields({"resourceName", "restartPolicy"});
  return f;
}

const KnownFields& container() {
  static const KnownFields f = fields({"name",
                                       "image",
                                       "command",
                                       "args",
                                       "workingDir",
                                       "ports",
                                       "envFrom",
                                       "env",
                                       "resources",
                                       "resizePolicy",
                                       "restartPolicy",
                                       "restartPolicyRules",
                                       "volumeMounts",
                                       "volumeDevices",
                                       "livenessProbe",
                                       "readinessProbe",
                                       "startupProbe",
                                       "lifecycle",
                                       "terminationMessagePath",
                                       "terminationMessagePolicy",
                                       "imagePullPolicy",
                                       "securityContext",
                                       "stdin",
                                       "stdinOnce",
                                       "tty"},
                                      {{"resources", &resource_requirements()},
                                       {"ports", &container_port()},
                                       {"env", &env_var()},
                                       {"volumeMounts", &volume_mount()},
                                       {"resizePolicy", &resize_policy()},
                                       {"livenessProbe", &probe()},
                                       {"readinessProbe", &probe()},
                                       {"startupProbe", &probe()}});
  return f;
}

const KnownFields& ephemeral_container() {
  static const KnownFields f = [] {
    KnownFields e = container();
    e.fields.emplace("targetContainerName", nullptr);
    return e;
  }();
  return f;
}

const KnownFields& pod_spec() {
  static const KnownFields f = fields({"volumes",
                                       "restartPolicy",
                                       "terminationGracePeriodSeconds",
                                       "activeDeadlineSeconds",
                                       "dnsPolicy",
                                       "nodeSelector",
                                       "serviceAccountName",
                                       "serviceAccount",
                                       "automountServiceAccountToken",
                                       "nodeName",
                                       "hostNetwork",
                                       "hostPID",
                                       "hostIPC",
                                       "shareProcessNamespace",
                                       "securityContext",
                                       "imagePullSecrets",
                                       "hostname",
                                       "hostnameOverride",
                                       "subdomain",
                                       "affinity",
                                       "schedulerName",
                                       "tolerations",
                                       "hostAliases",
                                       "priorityClassName",
                                       "priority",
                                       "dnsConfig",
                                       "readinessGates",
                                       "runtimeClassName",
                                       "enableServiceLinks",
                                       "preemptionPolicy",
                                       "overhead",
                                       "topologySpreadConstraints",
                                       "setHostnameAsFQDN",
                                       "os",
                                       "hostUsers",
                                       "schedulingGates",
                                       "resourceClaims",
                                       "resources"},
                                      {{"resources", &resource_requirements()},
                                       {"containers", &container()},
                                       {"initContainers", &container()},
                                       {"ephemeralContainers", &ephemeral_container()}});
  return f;
}

const KnownFields& pod_template() {
  static const KnownFields f = fields({}, {{"metadata", &object_meta()}, {"spec", &pod_spec()}});
  return f;
}

// ---- workloads

const KnownFields& rolling_update() {
  static const KnownFields f = fields({"maxUnavailable", "maxSurge"});
  return f;
}

const KnownFields& deployment_strategy() {
  static const KnownFields f = fields({"type"}, {{"rollingUpdate", &rolling_update()}});
  return f;
}

const KnownFields& deployment_spec() {
  static const KnownFields f =
      fields({"replicas", "selector", "strategy", "minReadySeconds", "revisionHistoryLimit",
              "paused", "progressDeadlineSeconds"},
             {{"template", &pod_template()}, {"strategy", &deployment_strategy()}});
  return f;
}

const KnownFields& replica_set_spec() {
  static const KnownFields f =
      fields({"replicas", "minReadySeconds", "selector"}, {{"template", &pod_template()}});
  return f;
}

const KnownFields& stateful_set_spec() {
  static const KnownFields f =
      fields({"replicas", "selector", "volumeClaimTemplates", "serviceName", "podManagementPolicy",
              "updateStrategy", "revisionHistoryLimit", "minReadySeconds",
              "persistentVolumeClaimRetentionPolicy", "ordinals"},
             {{"template", &pod_template()}});
  return f;
}

const KnownFields& daemon_set_spec() {
  static const KnownFields f =
      fields({"selector", "updateStrategy", "minReadySeconds", "revisionHistoryLimit"},
             {{"template", &pod_template()}});
  return f;
}

const KnownFields& job_spec() {
  static const KnownFields f = fields(
      {"parallelism", "completions", "activeDeadlineSeconds", "podFailurePolicy", "successPolicy",
       "backoffLimit", "backoffLimitPerIndex", "maxFailedIndexes", "selector", "manualSelector",
       "ttlSecondsAfterFinished", "completionMode", "suspend", "podReplacementPolicy", "managedBy"},
      {{"template", &pod_template()}});
  return f;
}

const KnownFields& job_template() {
  static const KnownFields f = fields({}, {{"metadata", &object_meta()}, {"spec", &job_spec()}});
  return f;
}

const KnownFields& cron_job_spec() {
  static const KnownFields f =
      fields({"schedule", "timeZone", "startingDeadlineSeconds", "concurrencyPolicy", "suspend",
              "successfulJobsHistoryLimit", "failedJobsHistoryLimit"},
             {{"jobTemplate", &job_template()}});
  return f;
}

const KnownFields& service_port() {
  static const KnownFields f =
      fields({"name", "protocol", "appProtocol", "port", "targetPort", "nodePort"});
  return f;
}

const KnownFields& service_spec() {
  static const KnownFields f = fields({"ports",
                                       "selector",
                                       "clusterIP",
                                       "clusterIPs",
                                       "type",
                                       "externalIPs",
                                       "sessionAffinity",
                                       "loadBalancerIP",
                                       "loadBalancerSourceRanges",
                                       "externalName",
                                       "externalTrafficPolicy",
                                       "healthCheckNodePort",
                                       "publishNotReadyAddresses",
                                       "sessionAffinityConfig",
                                       "ipFamilies",
                                       "ipFamilyPolicy",
                                       "allocateLoadBalancerNodePorts",
                                       "loadBalancerClass",
                                       "internalTrafficPolicy",
                                       "trafficDistribution"},
                                      {{"ports", &service_port()}});
  return f;
}

// ---- autoscaling: v2 is stored, v1 served from it (its unknown fields would be lost in the
// conversion, so v1 bodies are checked against v1's own fields).

const KnownFields& scale_target_ref() {
  static const KnownFields f = fields({"kind", "name", "apiVersion"});
  return f;
}

const KnownFields& hpa_v1_spec() {
  static const KnownFields f =
      fields({"minReplicas", "maxReplicas", "targetCPUUtilizationPercentage"},
             {{"scaleTargetRef", &scale_target_ref()}});
  return f;
}

const KnownFields& hpa_v1_status() {
  static const KnownFields f = fields({"observedGeneration", "lastScaleTime", "currentReplicas",
                                       "desiredReplicas", "currentCPUUtilizationPercentage"});
  return f;
}

const KnownFields& metric_target() {
  static const KnownFields f = fields({"type", "value", "averageValue", "averageUtilization"});
  return f;
}

const KnownFields& resource_metric_source() {
  static const KnownFields f = fields({"name"}, {{"target", &metric_target()}});
  return f;
}

const KnownFields& container_resource_metric_source() {
  static const KnownFields f = fields({"name", "container"}, {{"target", &metric_target()}});
  return f;
}

// Pods and External: a MetricIdentifier and a target; Object adds describedObject.
const KnownFields& pods_metric_source() {
  static const KnownFields f = fields({"metric"}, {{"target", &metric_target()}});
  return f;
}

const KnownFields& object_metric_source() {
  static const KnownFields f =
      fields({"describedObject", "metric"}, {{"target", &metric_target()}});
  return f;
}

const KnownFields& metric_spec() {
  static const KnownFields f =
      fields({"type"}, {{"resource", &resource_metric_source()},
                        {"containerResource", &container_resource_metric_source()},
                        {"pods", &pods_metric_source()},
                        {"external", &pods_metric_source()},
                        {"object", &object_metric_source()}});
  return f;
}

const KnownFields& scaling_policy() {
  static const KnownFields f = fields({"type", "value", "periodSeconds"});
  return f;
}

const KnownFields& scaling_rules() {
  static const KnownFields f = fields({"stabilizationWindowSeconds", "selectPolicy", "tolerance"},
                                      {{"policies", &scaling_policy()}});
  return f;
}

const KnownFields& hpa_behavior() {
  static const KnownFields f =
      fields({}, {{"scaleUp", &scaling_rules()}, {"scaleDown", &scaling_rules()}});
  return f;
}

const KnownFields& hpa_v2_spec() {
  static const KnownFields f =
      fields({"minReplicas", "maxReplicas", "behavior"}, {{"scaleTargetRef", &scale_target_ref()},
                                                          {"metrics", &metric_spec()},
                                                          {"behavior", &hpa_behavior()}});
  return f;
}

const KnownFields& hpa_v2_status() {
  static const KnownFields f = fields({"observedGeneration", "lastScaleTime", "currentReplicas",
                                       "desiredReplicas", "currentMetrics", "conditions"});
  return f;
}

// ---- policy, quota, coordination

const KnownFields& pod_disruption_budget_spec() {
  static const KnownFields f =
      fields({"minAvailable", "selector", "maxUnavailable", "unhealthyPodEvictionPolicy"});
  return f;
}

const KnownFields& resource_quota_spec() {
  static const KnownFields f = fields({"hard", "scopes", "scopeSelector"});
  return f;
}

const KnownFields& limit_range_item() {
  static const KnownFields f =
      fields({"type", "max", "min", "default", "defaultRequest", "maxLimitRequestRatio"});
  return f;
}

const KnownFields& limit_range_spec() {
  static const KnownFields f = fields({}, {{"limits", &limit_range_item()}});
  return f;
}

const KnownFields& lease_spec() {
  static const KnownFields f =
      fields({"holderIdentity", "leaseDurationSeconds", "acquireTime", "renewTime",
              "leaseTransitions", "strategy", "preferredHolder"});
  return f;
}

using Table = std::map<std::string, KnownFields, std::less<>>;

Table kinds() {
  Table t;
  t.emplace("/v1/pods", object({"status"}, {{"spec", &pod_spec()}}));
  t.emplace("/v1/nodes", object({"spec", "status"}));
  t.emplace("/v1/namespaces", object({"spec", "status"}));
  t.emplace("/v1/configmaps", object({"data", "binaryData", "immutable"}));
  t.emplace("/v1/secrets", object({"data", "stringData", "type", "immutable"}));
  t.emplace("/v1/services", object({"status"}, {{"spec", &service_spec()}}));
  t.emplace("/v1/serviceaccounts",
            object({"secrets", "imagePullSecrets", "automountServiceAccountToken"}));
  t.emplace("/v1/resourcequotas", object({"status"}, {{"spec", &resource_quota_spec()}}));
  t.emplace("/v1/limitranges", object({}, {{"spec", &limit_range_spec()}}));
  t.emplace("/v1/events", object({"involvedObject", "reason", "message", "source", "firstTimestamp",
                                  "lastTimestamp", "count", "type", "eventTime", "series", "action",
                                  "related", "reportingComponent", "reportingInstance"}));
  t.emplace("apps/v1/deployments", object({"status"}, {{"spec", &deployment_spec()}}));
  t.emplace("apps/v1/replicasets", object({"status"}, {{"spec", &replica_set_spec()}}));
  t.emplace("apps/v1/statefulsets", object({"status"}, {{"spec", &stateful_set_spec()}}));
  t.emplace("apps/v1/daemonsets", object({"status"}, {{"spec", &daemon_set_spec()}}));
  t.emplace("batch/v1/jobs", object({"status"}, {{"spec", &job_spec()}}));
  t.emplace("batch/v1/cronjobs", object({"status"}, {{"spec", &cron_job_spec()}}));
  t.emplace("autoscaling/v1/horizontalpodautoscalers",
            object({}, {{"spec", &hpa_v1_spec()}, {"status", &hpa_v1_status()}}));
  t.emplace("autoscaling/v2/horizontalpodautoscalers",
            object({}, {{"spec", &hpa_v2_spec()}, {"status", &hpa_v2_status()}}));
  t.emplace("policy/v1/poddisruptionbudgets",
            object({"status"}, {{"spec", &pod_disruption_budget_spec()}}));
  t.emplace("coordination.k8s.io/v1/leases", object({}, {{"spec", &lease_spec()}}));
  t.emplace("authorization.k8s.io/v1/selfsubjectaccessreviews", object({"spec", "status"}));
  t.emplace("apiextensions.k8s.io/v1/customresourcedefinitions", object({"spec", "status"}));
  t.emplace("admissionregistration.k8s.io/v1/mutatingwebhookconfigurations", object({"webhooks"}));
  return t;
}

// Walks `o` against `known`, collecting unknown paths; a non-const object also loses them.
template <class Object>
void walk(const KnownFields& known, Object& o, const std::string& path,
          std::vector<std::string>& unknown);

template <class Value>
void walk_value(const KnownFields& known, Value& v, const std::string& path,
                std::vector<std::string>& unknown) {
  if (v.is_object()) {
    walk(known, v.as_object(), path, unknown);
  } else if (v.is_array()) {
    auto& items = v.as_array();
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (items[i].is_object()) {
        walk(known, items[i].as_object(), path + "[" + std::to_string(i) + "]", unknown);
      }
    }
  }
}

template <class Object>
void walk(const KnownFields& known, Object& o, const std::string& path,
          std::vector<std::string>& unknown) {
  std::vector<std::string> gone;
  for (auto& [key, value] : o) {
    auto it = known.fields.find(std::string_view(key));
    if (it == known.fields.end()) {
      unknown.push_back(path.empty() ? std::string(key) : path + "." + std::string(key));
      gone.emplace_back(key);
    } else if (it->second) {
      walk_value(*it->second, value,
                 path.empty() ? std::string(key) : path + "." + std::string(key), unknown);
    }
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
  walk(known, object, "", unknown);
  return unknown;
}

void drop_unknown_fields(const KnownFields& known, bj::object& object) {
  std::vector<std::string> unknown;
  walk(known, object, "", unknown);
}

}  // namespace tailor::kube::embedded
