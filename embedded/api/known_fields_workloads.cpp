// apps/v1 and batch/v1 specs and statuses, every field (k8s.io/api apps/v1 and batch/v1
// types.go).
#include "embedded/api/known_fields_parts.h"

namespace tailor::embedded::known {
namespace {

// Deployments' conditions also carry lastUpdateTime.
const KnownFields& deployment_condition() {
  static const KnownFields f =
      fields({"type", "status", "lastUpdateTime", "lastTransitionTime", "reason", "message"});
  return f;
}

// ReplicaSets', StatefulSets' and DaemonSets'.
const KnownFields& workload_condition() {
  static const KnownFields f =
      fields({"type", "status", "lastTransitionTime", "reason", "message"});
  return f;
}

const KnownFields& job_condition() {
  static const KnownFields f =
      fields({"type", "status", "lastProbeTime", "lastTransitionTime", "reason", "message"});
  return f;
}

const KnownFields& rolling_update() {  // Deployment's and DaemonSet's
  static const KnownFields f = fields({"maxUnavailable", "maxSurge"});
  return f;
}

const KnownFields& update_strategy() {  // DeploymentStrategy, DaemonSetUpdateStrategy
  static const KnownFields f = fields({"type"}, {{"rollingUpdate", &rolling_update()}});
  return f;
}

const KnownFields& stateful_set_update_strategy() {
  static const KnownFields rolling = fields({"partition", "maxUnavailable"});
  static const KnownFields f = fields({"type"}, {{"rollingUpdate", &rolling}});
  return f;
}

const KnownFields& pod_failure_policy() {
  static const KnownFields exit_codes = fields({"containerName", "operator", "values"});
  static const KnownFields pod_condition = fields({"type", "status"});
  static const KnownFields rule =
      fields({"action"}, {{"onExitCodes", &exit_codes}, {"onPodConditions", &pod_condition}});
  static const KnownFields f = fields({}, {{"rules", &rule}});
  return f;
}

const KnownFields& success_policy() {
  static const KnownFields rule = fields({"succeededIndexes", "succeededCount"});
  static const KnownFields f = fields({}, {{"rules", &rule}});
  return f;
}

const KnownFields& job_template() {
  static const KnownFields f = fields({}, {{"metadata", &object_meta()}, {"spec", &job_spec()}});
  return f;
}

}  // namespace

const KnownFields& deployment_spec() {
  static const KnownFields f = fields(
      {"replicas", "minReadySeconds", "revisionHistoryLimit", "paused", "progressDeadlineSeconds"},
      {{"selector", &label_selector()},
       {"template", &pod_template()},
       {"strategy", &update_strategy()}});
  return f;
}

const KnownFields& deployment_status() {
  static const KnownFields f =
      fields({"observedGeneration", "replicas", "updatedReplicas", "readyReplicas",
              "availableReplicas", "unavailableReplicas", "terminatingReplicas", "collisionCount"},
             {{"conditions", &deployment_condition()}});
  return f;
}

const KnownFields& replica_set_spec() {
  static const KnownFields f =
      fields({"replicas", "minReadySeconds"},
             {{"selector", &label_selector()}, {"template", &pod_template()}});
  return f;
}

const KnownFields& replica_set_status() {
  static const KnownFields f =
      fields({"replicas", "fullyLabeledReplicas", "readyReplicas", "availableReplicas",
              "terminatingReplicas", "observedGeneration"},
             {{"conditions", &workload_condition()}});
  return f;
}

const KnownFields& stateful_set_spec() {
  static const KnownFields retention = fields({"whenDeleted", "whenScaled"});
  static const KnownFields ordinals = fields({"start"});
  static const KnownFields f = fields(
      {"replicas", "serviceName", "podManagementPolicy", "revisionHistoryLimit", "minReadySeconds"},
      {{"selector", &label_selector()},
       {"template", &pod_template()},
       {"volumeClaimTemplates", &persistent_volume_claim()},
       {"updateStrategy", &stateful_set_update_strategy()},
       {"persistentVolumeClaimRetentionPolicy", &retention},
       {"ordinals", &ordinals}});
  return f;
}

const KnownFields& stateful_set_status() {
  static const KnownFields f = fields(
      {"observedGeneration", "replicas", "readyReplicas", "currentReplicas", "updatedReplicas",
       "currentRevision", "updateRevision", "collisionCount", "availableReplicas"},
      {{"conditions", &workload_condition()}});
  return f;
}

const KnownFields& daemon_set_spec() {
  static const KnownFields f =
      fields({"minReadySeconds", "revisionHistoryLimit"}, {{"selector", &label_selector()},
                                                           {"template", &pod_template()},
                                                           {"updateStrategy", &update_strategy()}});
  return f;
}

const KnownFields& daemon_set_status() {
  static const KnownFields f =
      fields({"currentNumberScheduled", "numberMisscheduled", "desiredNumberScheduled",
              "numberReady", "observedGeneration", "updatedNumberScheduled", "numberAvailable",
              "numberUnavailable", "collisionCount"},
             {{"conditions", &workload_condition()}});
  return f;
}

const KnownFields& job_spec() {
  static const KnownFields f = fields(
      {"parallelism", "completions", "activeDeadlineSeconds", "backoffLimit",
       "backoffLimitPerIndex", "maxFailedIndexes", "manualSelector", "ttlSecondsAfterFinished",
       "completionMode", "suspend", "podReplacementPolicy", "managedBy"},
      {{"podFailurePolicy", &pod_failure_policy()},
       {"successPolicy", &success_policy()},
       {"selector", &label_selector()},
       {"template", &pod_template()}});
  return f;
}

const KnownFields& job_status() {
  static const KnownFields uncounted = fields({"succeeded", "failed"});
  static const KnownFields f =
      fields({"startTime", "completionTime", "active", "succeeded", "failed", "terminating",
              "completedIndexes", "failedIndexes", "ready"},
             {{"conditions", &job_condition()}, {"uncountedTerminatedPods", &uncounted}});
  return f;
}

const KnownFields& cron_job_spec() {
  static const KnownFields f =
      fields({"schedule", "timeZone", "startingDeadlineSeconds", "concurrencyPolicy", "suspend",
              "successfulJobsHistoryLimit", "failedJobsHistoryLimit"},
             {{"jobTemplate", &job_template()}});
  return f;
}

// active: ObjectReferences (kind, namespace, name, uid, apiVersion, resourceVersion, fieldPath).
const KnownFields& cron_job_status() {
  static const KnownFields reference =
      fields({"kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath"});
  static const KnownFields f =
      fields({"lastScheduleTime", "lastSuccessfulTime"}, {{"active", &reference}});
  return f;
}

}  // namespace tailor::embedded::known
