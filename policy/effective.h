// The policy the actuator and recommender act on: one typed form for both APIs, defaults applied.
// Building it validates the object; any problem is reported in words (for the ConfigInvalid /
// ConfigUnsupported condition) and no policy is produced, so an invalid object is never acted on.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "policy/types.h"

namespace tailor::policy {

enum class UpdateMode { Off, Initial, Recreate, InPlaceOrRecreate, InPlace };
enum class ContainerMode { Auto, Off };
enum class ControlledValues { RequestsAndLimits, RequestsOnly };
enum class PolicyApi { VerticalScalingPolicy, VerticalPodAutoscaler };

std::string_view to_string(UpdateMode mode);
// Tailor's names, which VPA's are too; for the VPA API also "Auto" (deprecated alias of
// Recreate).
std::optional<UpdateMode> parse_update_mode(std::string_view text, PolicyApi api);

inline constexpr std::chrono::seconds kDefaultDeferredTimeout{5 * 60};
inline constexpr std::chrono::seconds kDefaultInProgressTimeout{60 * 60};
inline constexpr std::int32_t kDefaultMinReplicas = 1;     // VerticalScalingPolicy
inline constexpr std::int32_t kDefaultVpaMinReplicas = 2;  // VPA updater's --min-replicas
inline constexpr std::string_view kWildcardContainer = "*";

struct EffectiveContainerPolicy {
  std::string container_name{};
  ContainerMode mode = ContainerMode::Auto;
  kube::ResourceList min_allowed{};
  kube::ResourceList max_allowed{};
  std::vector<std::string> controlled_resources{"cpu", "memory"};
  ControlledValues controlled_values = ControlledValues::RequestsAndLimits;

  bool controls(std::string_view resource) const;
};

struct EffectivePolicy {
  PolicyApi api = PolicyApi::VerticalScalingPolicy;
  kube::ObjectMeta metadata{};
  std::optional<CrossVersionObjectReference> target_ref{};
  std::optional<LabelSelector> selector{};
  UpdateMode mode = UpdateMode::InPlaceOrRecreate;
  std::int32_t min_replicas = kDefaultMinReplicas;
  std::chrono::seconds deferred_timeout = kDefaultDeferredTimeout;
  std::chrono::seconds in_progress_timeout = kDefaultInProgressTimeout;
  std::vector<EffectiveContainerPolicy> container_policies{};
  RecommenderOverrides recommender{};
  std::vector<std::string> recommenders{};  // VPA spec.recommenders names
};

// The container's own policy, else the "*" one, else the defaults (Auto, cpu+memory, no bounds).
EffectiveContainerPolicy container_policy_for(const EffectivePolicy& policy,
                                              std::string_view container);

// The recommendation with only the resources the container policy controls, in every field, as
// VPA's recommender filters its estimations (controlledResources: [memory] leaves cpu out).
RecommendedContainerResources only_controlled(RecommendedContainerResources r,
                                              const EffectiveContainerPolicy& policy);

struct Validated {
  std::optional<EffectivePolicy> policy{};  // set only when problems is empty
  // Each "path: what is wrong", e.g.
  // "spec.resourcePolicy.containerPolicies[0].minAllowed.cpu: 2 is greater than maxAllowed 1".
  std::vector<std::string> problems{};
};

Validated validate(const VerticalScalingPolicy& vsp);
Validated validate(const VerticalPodAutoscaler& vpa);

// The condition message for a list of problems ("; "-joined, the first few only).
std::string problems_message(const std::vector<std::string>& problems);

}  // namespace tailor::policy
