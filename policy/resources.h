// Where Tailor's policies and checkpoints live in the API (VerticalScalingPolicy and
// VerticalScalingCheckpoint in autoscaling.tailor.dev, VerticalPodAutoscaler and its checkpoints
// in autoscaling.k8s.io), and the workload kinds a targetRef or an ownerReference resolves
// through: one copy for the controller, the CLI and the benchmarks.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kube/client/rest_client.h"
#include "policy/effective.h"

namespace tailor::policy {

namespace resources {
extern const kube::ResourceType kVerticalScalingPolicies, kVerticalPodAutoscalers,
    kVerticalScalingCheckpoints, kVerticalPodAutoscalerCheckpoints;
}  // namespace resources

// The policy object's resource, kind and apiVersion, by the API it was written in.
const kube::ResourceType& resource_of(PolicyApi api);
std::string_view kind_of(PolicyApi api);
std::string_view api_version_of(PolicyApi api);

// The controllers a pod's owner chain climbs (policy/target_ref.h), by kind, each with the
// resource to watch it through.
const std::vector<std::pair<std::string, kube::ResourceType>>& owner_kinds();

}  // namespace tailor::policy
