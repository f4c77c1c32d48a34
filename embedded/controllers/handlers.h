// Private to controllers/: the subresource handlers and admission plugins register.cpp adds.
#pragma once

#include "embedded/api/extensions.h"
#include "embedded/storage/object_store.h"

namespace tailor::embedded {

// POST pods/<name>/eviction (policy/v1 Eviction), honouring PodDisruptionBudgets.
SubresourceHandler eviction_handler(ObjectStore& store);
// POST pods/<name>/binding (v1 Binding).
SubresourceHandler binding_handler(ObjectStore& store);
// GET, PUT, PATCH <workload>/<name>/scale (autoscaling/v1 Scale).
SubresourceHandler scale_handler(ObjectStore& store);
// Defaults of apps/v1 and batch/v1 workloads (strategy, revisionHistoryLimit, pod template
// defaults, ...) on create and update, as kube-apiserver's defaulting does.
void default_workload(AdmissionRequest& request);
// Services (SetDefaults_Service: type ClusterIP, sessionAffinity None, port protocol TCP,
// targetPort = port, traffic policies; single-stack IPv4 family fields) and Secrets (type Opaque)
// on create and update.
void default_service_and_secret(AdmissionRequest& request);
// The selector is required and must select the template's labels (422 as kube-apiserver).
void validate_workload_selector(AdmissionRequest& request);
// The pod template of a workload, validated as a pod (ValidatePodTemplateSpec).
void validate_workload_template(AdmissionRequest& request);
// A CronJob's schedule parses as robfig/cron's ParseStandard (422 with its words), no TZ in it;
// its timeZone names a zone (cronjob_validation).
void validate_cronjob_schedule(AdmissionRequest& request);
// autoscaling/v2 HorizontalPodAutoscalers: SetDefaults_HorizontalPodAutoscaler (minReplicas 1,
// a CPU metric at 80% when none, behavior's unset rules) and the spec's validation (422).
void default_horizontal_pod_autoscaler(AdmissionRequest& request);
void validate_horizontal_pod_autoscaler(AdmissionRequest& request);
// networking.k8s.io/v1 NetworkPolicies: SetDefaults_NetworkPolicy and the spec's validation (422),
// network_policies.h.
void default_network_policy(AdmissionRequest& request);
void validate_network_policy(AdmissionRequest& request);

}  // namespace tailor::embedded
