// The nodes known_fields.cpp's table is built from, one file per API area (container, pod,
// workloads, cluster objects). Field names are the json tags of k8s.io/api's Go types: a field
// missing here would make Strict reject a valid object and every mode drop its value, so each
// struct lists all of its fields; a node is left open (nullptr) only where upstream's value is a
// map, a raw extension or a CRD's open-ended schema.
#pragma once

#include <initializer_list>
#include <string_view>
#include <utility>

#include "embedded/api/known_fields.h"

namespace tailor::embedded::known {

using Nested = std::pair<std::string_view, const KnownFields*>;

// `open` names fields whose values are not checked, `nested` fields checked against a node (in
// every element when the value is a list).
KnownFields fields(std::initializer_list<std::string_view> open,
                   std::initializer_list<Nested> nested = {});
// `f` as the elements of a list whose map keys are `keys` (sorted by name).
KnownFields keyed(KnownFields f, std::initializer_list<ListKey> keys);

// meta/v1
const KnownFields& object_meta();
const KnownFields& label_selector();
const KnownFields& local_object_reference();  // {name}
const KnownFields& condition();               // metav1.Condition

// core/v1 containers (known_fields_container.cpp)
const KnownFields& resource_requirements();
const KnownFields& container();
const KnownFields& ephemeral_container();
const KnownFields& se_linux_options();
const KnownFields& windows_options();
const KnownFields& seccomp_profile();
const KnownFields& object_field_selector();
const KnownFields& resource_field_selector();
const KnownFields& container_status();

// core/v1 pods (known_fields_pod.cpp)
const KnownFields& pod_spec();
const KnownFields& pod_status();
const KnownFields& pod_template();
const KnownFields& persistent_volume_claim();

// apps/v1, batch/v1 (known_fields_workloads.cpp)
const KnownFields& deployment_spec();
const KnownFields& deployment_status();
const KnownFields& replica_set_spec();
const KnownFields& replica_set_status();
const KnownFields& stateful_set_spec();
const KnownFields& stateful_set_status();
const KnownFields& daemon_set_spec();
const KnownFields& daemon_set_status();
const KnownFields& job_spec();
const KnownFields& job_status();
const KnownFields& cron_job_spec();
const KnownFields& cron_job_status();

// core/v1 Service and Node (known_fields_cluster.cpp)
const KnownFields& service_spec();
const KnownFields& service_status();
const KnownFields& node_spec();
const KnownFields& node_status();

// autoscaling/v1 and v2 (known_fields_autoscaling.cpp)
const KnownFields& hpa_v1_spec();
const KnownFields& hpa_v1_status();
const KnownFields& hpa_v2_spec();
const KnownFields& hpa_v2_status();

// The other core/v1 kinds, policy, coordination, authorization, admissionregistration
// (known_fields_policy.cpp); events and service accounts have no spec: their top-level fields.
KnownFields event();
KnownFields service_account();
const KnownFields& namespace_spec();
const KnownFields& namespace_status();
const KnownFields& resource_quota_spec();
const KnownFields& resource_quota_status();
const KnownFields& limit_range_spec();
const KnownFields& pod_disruption_budget_spec();
const KnownFields& pod_disruption_budget_status();
const KnownFields& network_policy_spec();  // networking.k8s.io/v1
const KnownFields& lease_spec();
const KnownFields& self_subject_access_review_spec();
const KnownFields& subject_access_review_status();
const KnownFields& mutating_webhook();

// rbac.authorization.k8s.io/v1, SubjectAccessReview (known_fields_rbac.cpp)
const KnownFields& policy_rule();
const KnownFields& aggregation_rule();
const KnownFields& subject();
const KnownFields& role_ref();
const KnownFields& subject_access_review_spec();

}  // namespace tailor::embedded::known
