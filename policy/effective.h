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

// A valid startupBoost.cpu, typed. Factor multiplies the CPU request (>= 1); Quantity is the CPU
// request during the boost (the CRD's "absolute resource quantity"); the limit follows the
// request with the ratio it had (boost.h).
struct CpuBoost {
  enum class Kind { Factor, Quantity };
  Kind kind = Kind::Factor;
  std::int32_t factor = 1;
  kube::Quantity quantity{};
  std::chrono::seconds duration{0};  // kept after the pod is Ready
  bool operator==(const CpuBoost&) const = default;
};

struct EffectiveContainerPolicy {
  std::string container_name{};
  ContainerMode mode = ContainerMode::Auto;
  kube::ResourceList min_allowed{};
  kube::ResourceList max_allowed{};
  std::vector<std::string> controlled_resources{"cpu", "memory"};
  ControlledValues controlled_values = ControlledValues::RequestsAndLimits;
  // The container policy's own startupBoost.cpu (nullopt: the spec's applies, cpu_boost_for).
  // An explicit boost of factor 1 turns the spec's off for this container, as in VPA.
  std::optional<CpuBoost> cpu_boost{};

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
  std::optional<CpuBoost> cpu_boost{};      // spec.startupBoost.cpu
};

// The boost a container gets at creation: its container policy's (own or "*"), else the
// spec's; nullopt when neither sets one or it would not raise anything (factor 1).
std::optional<CpuBoost> cpu_boost_for(const EffectivePolicy& policy, std::string_view container);

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
