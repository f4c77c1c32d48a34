#include "policy/status.h"

#include <algorithm>

#include "kube/model/json_writer.h"

namespace tailor::policy {
namespace {

namespace bj = boost::json;
using kube::json::put;
using kube::json::to_value;

bj::object recommendation_value(const RecommendedContainerResources& r) {
  bj::object o;
  o["containerName"] = r.container_name;
  put(o, "target", to_value(r.target));
  put(o, "lowerBound", to_value(r.lower_bound));
  put(o, "upperBound", to_value(r.upper_bound));
  put(o, "uncappedTarget", to_value(r.uncapped_target));
  return o;
}

bj::object condition_value(const PolicyCondition& c) {
  bj::object o;
  o["type"] = c.type;
  o["status"] = c.status;
  put(o, "lastTransitionTime", c.last_transition_time);
  put(o, "reason", c.reason);
  put(o, "message", c.message);
  return o;
}

bj::object status_value(const PolicyStatus& status) {
  bj::object o;
  if (status.recommendation) {
    bj::array containers;
    for (const auto& r : status.recommendation->container_recommendations) {
      containers.emplace_back(recommendation_value(r));
    }
    bj::object recommendation;
    put(recommendation, "containerRecommendations", bj::value(std::move(containers)));
    o["recommendation"] = std::move(recommendation);
  }
  bj::array conditions;
  for (const auto& c : status.conditions) conditions.emplace_back(condition_value(c));
  put(o, "conditions", bj::value(std::move(conditions)));
  return o;
}

}  // namespace

std::string_view invalid_config_condition(PolicyApi api) {
  return api == PolicyApi::VerticalPodAutoscaler ? kConfigUnsupported : kConfigInvalid;
}

const PolicyCondition* find_condition(const std::vector<PolicyCondition>& conditions,
                                      std::string_view type) {
  for (const auto& c : conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

void set_condition(std::vector<PolicyCondition>& conditions, std::string_view type,
                   std::string_view status, std::string_view reason, std::string_view message,
                   std::string_view now) {
  auto it = std::find_if(conditions.begin(), conditions.end(),
                         [&](const PolicyCondition& c) { return c.type == type; });
  if (it == conditions.end()) {
    conditions.push_back(PolicyCondition{std::string(type), std::string(status), std::string(now),
                                         std::string(reason), std::string(message)});
    return;
  }
  if (it->status != status || it->last_transition_time.empty()) {
    it->last_transition_time = std::string(now);
  }
  it->status = std::string(status);
  it->reason = std::string(reason);
  it->message = std::string(message);
}

void remove_condition(std::vector<PolicyCondition>& conditions, std::string_view type) {
  std::erase_if(conditions, [&](const PolicyCondition& c) { return c.type == type; });
}

namespace {
void set_or_remove(std::vector<PolicyCondition>& conditions, std::string_view type,
                   std::string_view reason, const std::string& message, std::string_view now) {
  if (message.empty()) {
    remove_condition(conditions, type);
  } else {
    set_condition(conditions, type, "True", reason, message, now);
  }
}
}  // namespace

namespace {

// The invalid-config condition: the spec's problems first, then (VPA objects) the targetRef.
void update_config_condition(PolicyApi api, const PolicyFacts& facts, std::string_view now,
                             std::vector<PolicyCondition>& conditions) {
  const std::string_view type = invalid_config_condition(api);
  if (!facts.problems.empty()) {
    set_condition(conditions, type, "True", "InvalidSpec", problems_message(facts.problems), now);
  } else if (api == PolicyApi::VerticalPodAutoscaler && !facts.target_message.empty()) {
    set_condition(conditions, type, "True", "", facts.target_message, now);
  } else {
    remove_condition(conditions, type);
  }
}

}  // namespace

void update_conditions(PolicyApi api, const PolicyFacts& facts, std::string_view now,
                       std::vector<PolicyCondition>& conditions) {
  update_config_condition(api, facts, now, conditions);
  std::string reason;
  std::string message;
  if (!facts.problems.empty()) {
    // Not matched against pods: whether any match is not known.
    remove_condition(conditions, kNoPodsMatched);
    reason = std::string(invalid_config_condition(api));
    message = "The spec is invalid: no recommendation is made";
  } else if (facts.pods_matched) {
    remove_condition(conditions, kNoPodsMatched);
  } else {
    reason = "NoPodsMatched";
    message = api == PolicyApi::VerticalPodAutoscaler ? "No pods match this VPA object"
                                                      : "No pods match this policy";
    set_condition(conditions, kNoPodsMatched, "True", reason, message, now);
  }
  if (facts.has_recommendation) {
    set_condition(conditions, kRecommendationProvided, "True", "", "", now);
  } else {
    set_condition(conditions, kRecommendationProvided, "False", reason, message, now);
  }
  const bool tailors = api == PolicyApi::VerticalScalingPolicy;
  if (tailors) {
    set_or_remove(conditions, kOverlappingPolicy, "OlderPolicyWins", facts.overlap_message, now);
  }
  set_or_remove(conditions, kHorizontalScalerConflict, "HorizontalPodAutoscaler", facts.hpa_message,
                now);
  if (tailors) {
    set_or_remove(conditions, kResizeQuotaExceeded, "ExceededQuota", facts.quota_message, now);
  }
}

std::string status_json(const PolicyStatus& status) { return bj::serialize(status_value(status)); }

std::string status_patch(const PolicyStatus& status) {
  bj::array patch;
  patch.emplace_back(
      bj::object{{"op", "add"}, {"path", "/status"}, {"value", status_value(status)}});
  return bj::serialize(patch);
}

}  // namespace tailor::policy
