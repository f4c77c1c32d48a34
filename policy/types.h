// VerticalScalingPolicy (autoscaling.tailor.dev/v1alpha1) and the upstream
// VerticalPodAutoscaler (autoscaling.k8s.io/v1), as stored: enums and durations stay the strings
// the user wrote, so that an unknown mode is a ConfigInvalid condition (validate.h) rather than
// a decode failure. effective.h turns a valid object into typed values with defaults applied.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kube/model/meta.h"
#include "kube/model/resources.h"

namespace tailor::policy {

inline constexpr std::string_view kTailorGroup = "autoscaling.tailor.dev";
inline constexpr std::string_view kTailorApiVersion = "autoscaling.tailor.dev/v1alpha1";
inline constexpr std::string_view kVpaGroup = "autoscaling.k8s.io";
inline constexpr std::string_view kVpaApiVersion = "autoscaling.k8s.io/v1";

// autoscaling/v1 CrossVersionObjectReference.
struct CrossVersionObjectReference {
  std::string api_version{};
  std::string kind{};
  std::string name{};
};

struct LabelSelectorRequirement {
  std::string key{};
  std::string op{};  // "In" | "NotIn" | "Exists" | "DoesNotExist"
  std::vector<std::string> values{};
};

struct LabelSelector {
  kube::StringMap match_labels{};
  std::vector<LabelSelectorRequirement> match_expressions{};
};

// startupBoost.cpu (VPA 1.7, AEP-7862; the same shape on VerticalScalingPolicy): raise a
// container's CPU request and limit at creation, resized back in place once the pod is Ready and
// durationSeconds have passed.
struct CpuStartupBoost {
  std::string type{};                              // "Factor" | "Quantity" (required)
  std::optional<std::int32_t> factor{};            // Factor: the request is multiplied by it
  std::optional<kube::Quantity> quantity{};        // Quantity: the CPU request during the boost
  std::optional<std::int32_t> duration_seconds{};  // after Ready; "" = 0
};

struct StartupBoost {
  std::optional<CpuStartupBoost> cpu{};  // nullopt: no boost
};

// containerPolicies[] (same shape in both APIs).
struct ContainerResourcePolicy {
  std::string container_name{};  // a container's name, or "*" for every other container
  std::string mode{};            // "Auto" | "Off"; "" = Auto
  kube::ResourceList min_allowed{};
  kube::ResourceList max_allowed{};
  std::optional<std::vector<std::string>> controlled_resources{};  // nullopt = [cpu, memory]
  std::string controlled_values{};  // "RequestsAndLimits" | "RequestsOnly"; "" = the first
  std::optional<StartupBoost> startup_boost{};  // overrides the spec's for this container
};

struct PodResourcePolicy {
  std::vector<ContainerResourcePolicy> container_policies{};
};

// status.recommendation.containerRecommendations[].
struct RecommendedContainerResources {
  std::string container_name{};
  kube::ResourceList target{};
  kube::ResourceList lower_bound{};
  kube::ResourceList upper_bound{};
  kube::ResourceList uncapped_target{};
  bool operator==(const RecommendedContainerResources&) const = default;
};

struct RecommendedPodResources {
  std::vector<RecommendedContainerResources> container_recommendations{};
  bool operator==(const RecommendedPodResources&) const = default;
};

struct PolicyCondition {
  std::string type{};
  std::string status{};  // "True" | "False" | "Unknown"
  std::string last_transition_time{};
  std::string reason{};
  std::string message{};
  bool operator==(const PolicyCondition&) const = default;
};

struct PolicyStatus {
  std::optional<RecommendedPodResources> recommendation{};
  std::vector<PolicyCondition> conditions{};
  bool operator==(const PolicyStatus&) const = default;
};

// ---- VerticalScalingPolicy

struct UpdatePolicy {
  std::string mode{};  // Off | Initial | Recreate | InPlaceOrRecreate | InPlace; "" = default
  std::optional<std::int32_t> min_replicas{};
  std::string deferred_timeout{};     // Go duration; "" = 5m
  std::string in_progress_timeout{};  // Go duration; "" = 1h
};

// Per-policy overrides of the recommender's estimator; unset fields take the controller's.
struct RecommenderOverrides {
  std::optional<double> cpu_percentile{};
  std::optional<double> memory_percentile{};
  std::optional<double> lower_bound_percentile{};
  std::optional<double> upper_bound_percentile{};
  std::optional<double> safety_margin_fraction{};
};

struct VerticalScalingPolicySpec {
  std::optional<CrossVersionObjectReference> target_ref{};
  std::optional<LabelSelector> selector{};  // bare pods: instead of targetRef
  UpdatePolicy update_policy{};
  PodResourcePolicy resource_policy{};
  RecommenderOverrides recommender{};
  std::optional<StartupBoost> startup_boost{};
};

struct VerticalScalingPolicy {
  kube::ObjectMeta metadata{};
  VerticalScalingPolicySpec spec{};
  PolicyStatus status{};
};

// ---- VerticalPodAutoscaler (autoscaling.k8s.io/v1)

struct VpaUpdatePolicy {
  std::string update_mode{};  // Off | Initial | Recreate | InPlaceOrRecreate | Auto (deprecated)
  std::optional<std::int32_t> min_replicas{};
};

struct VpaRecommenderSelector {
  std::string name{};
};

struct VerticalPodAutoscalerSpec {
  std::optional<CrossVersionObjectReference> target_ref{};
  std::optional<VpaUpdatePolicy> update_policy{};
  std::optional<PodResourcePolicy> resource_policy{};
  std::vector<VpaRecommenderSelector> recommenders{};
  std::optional<StartupBoost> startup_boost{};
};

struct VerticalPodAutoscaler {
  kube::ObjectMeta metadata{};
  VerticalPodAutoscalerSpec spec{};
  PolicyStatus status{};
};

}  // namespace tailor::policy
