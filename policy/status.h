// Policy status: conditions (with VPA's lastTransitionTime semantics) and the status patch.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "policy/effective.h"
#include "policy/types.h"

namespace tailor::policy {

// Condition types. VPA objects get VPA's own (RecommendationProvided, LowConfidence,
// NoPodsMatched, FetchingHistory, ConfigDeprecated, ConfigUnsupported); Tailor's policies use
// RecommendationProvided, NoPodsMatched and the rest below.
inline constexpr std::string_view kRecommendationProvided = "RecommendationProvided";
inline constexpr std::string_view kLowConfidence = "LowConfidence";
inline constexpr std::string_view kNoPodsMatched = "NoPodsMatched";
inline constexpr std::string_view kFetchingHistory = "FetchingHistory";
inline constexpr std::string_view kConfigDeprecated = "ConfigDeprecated";
inline constexpr std::string_view kConfigUnsupported = "ConfigUnsupported";
inline constexpr std::string_view kConfigInvalid = "ConfigInvalid";
inline constexpr std::string_view kOverlappingPolicy = "OverlappingPolicy";
inline constexpr std::string_view kHorizontalScalerConflict = "HorizontalScalerConflict";
inline constexpr std::string_view kResizeQuotaExceeded = "ResizeQuotaExceeded";

// The condition type that reports an invalid spec for this API.
std::string_view invalid_config_condition(PolicyApi api);

// Sets (or adds) the condition of that type. lastTransitionTime changes only when the status
// does (as VPA's conditions map); reason and message are always taken over.
void set_condition(std::vector<PolicyCondition>& conditions, std::string_view type,
                   std::string_view status, std::string_view reason, std::string_view message,
                   std::string_view now);
void remove_condition(std::vector<PolicyCondition>& conditions, std::string_view type);
const PolicyCondition* find_condition(const std::vector<PolicyCondition>& conditions,
                                      std::string_view type);

// What the controller knows about a policy in one pass.
struct PolicyFacts {
  std::vector<std::string> problems{};  // validation problems; non-empty: the spec is invalid
  // VPA objects: the ConfigUnsupported message of a targetRef VPA does not act on ("Cannot read
  // targetRef. Reason: ...", "The target ... has a parent controller ...", unsupported_target in
  // target_ref.h); "" when it does, or when the controller cannot tell.
  std::string target_message{};
  bool pods_matched = false;
  bool has_recommendation = false;
  std::string overlap_message{};  // "" when no older policy takes any of its pods
  std::string hpa_message{};      // "" when no HPA scales the target on cpu/memory
  std::string quota_message{};    // "" when no resize was refused for quota
};

// Brings the conditions in line with the facts. Both APIs: RecommendationProvided and
// NoPodsMatched exactly as VPA's recommender sets them, and the invalid-config condition. An
// invalid spec is not matched against pods, so it claims no NoPodsMatched: RecommendationProvided
// is False for the invalid config instead. VPA objects: an unreadable targetRef is
// ConfigUnsupported (status True, no reason, VPA's message), as VPA's recommender sets it.
// HorizontalScalerConflict on both (VPA has no condition for it; the type is Tailor's). Tailor's
// other conditions (OverlappingPolicy, ResizeQuotaExceeded) only on VerticalScalingPolicies; for
// VPA objects the controller reports those as events.
void update_conditions(PolicyApi api, const PolicyFacts& facts, std::string_view now,
                       std::vector<PolicyCondition>& conditions);

// The status as JSON ({"recommendation": {...}, "conditions": [...]}), field names and
// omissions as VPA writes them.
std::string status_json(const PolicyStatus& status);

// The patch for the status subresource, as VPA's recommender sends it:
// JSON patch (application/json-patch+json) [{"op":"add","path":"/status","value":{...}}].
std::string status_patch(const PolicyStatus& status);

}  // namespace tailor::policy
