// Readers for the policy types, built on the kube model's typed simdjson readers (json_reader.h)
// so that paths and messages read the same as for pods.
#include "policy/decode.h"

#include <cmath>

#include "kube/model/json_root.h"

namespace tailor::policy {

// Overloads for the policy types live in tailor::policy so that the model's vector/optional
// readers find them by argument-dependent lookup.
using kube::json::for_each_field;
using kube::json::read;
namespace od = simdjson::ondemand;

void read(od::value& v, double& out) {
  if (auto error = v.get_double().get(out)) {
    if (kube::json::null_after(v, error)) return;
    kube::json::fail_type(v, error, "a number");
  }
  if (!std::isfinite(out)) kube::json::fail("expected a finite number");
}

// The model's optional<T> reader cannot see the double reader above (no associated namespace).
void read(od::value& v, std::optional<double>& out) {
  bool is_null = false;
  if (auto error = v.is_null().get(is_null)) kube::json::fail_syntax(error);
  if (is_null) {
    out.reset();
    return;
  }
  read(v, out.emplace());
}

void read(od::value& v, CrossVersionObjectReference& out) {
  for_each_field(v, [&](std::string_view key, od::value& f) {
    if (key == "apiVersion")
      read(f, out.api_version);
    else if (key == "kind")
      read(f, out.kind);
    else if (key == "name")
      read(f, out.name);
  });
}

void read(od::value& v, LabelSelectorRequirement& out) {
  for_each_field(v, [&](std::string_view key, od::value& f) {
    if (key == "key")
      read(f, out.key);
    else if (key == "operator")
      read(f, out.op);
    else if (key == "values")
      read(f, out.values);
  });
}

void read(od::value& v, LabelSelector& out) {
  for_each_field(v, [&](std::string_view key, od::value& f) {
    if (key == "matchLabels")
      read(f, out.match_labels);
    else if (key == "matchExpressions")
      read(f, out.match_expressions);
  });
}

void read(od::value& v, CpuStartupBoost& out) {
  for_each_field(v, [&](std::string_view key, od::value& f) {
    if (key == "type")
      read(f, out.type);
    else if (key == "factor")
      read(f, out.factor);
    else if (key == "quantity")
      read(f, out.quantity);
    else if (key == "durationSeconds")
      read(f, out.duration_seconds);
  });
}

void read(od::value& v, StartupBoost& out) {
  for_each_field(v, [&](std::string_view key, od::value& f) {
    if (key == "cpu") read(f, out.cpu);
  });
}

void read(od::value& v, ContainerResourcePolicy& out) {
  for_each_field(v, [&](std::string_view key, od::value& f) {
    if (key == "containerName")
      read(f, out.container_name);
    else if (key == "mode")
      read(f, out.mode);
    else if (key == "minAllowed")
      read(f, out.min_allowed);
    else if (key == "maxAllowed")
      read(f, out.max_allowed);
    else if (key == "controlledResources")
      read(f, out.controlled_resources);
    else if (key == "controlledValues")
      read(f, out.controlled_values);
    else if (key == "startupBoost")
      read(f, out.startup_boost);
  });
}

void read(od::value& v, PodResourcePolicy& out) {
  for_each_field(v, [&](std::string_view key, od::value& f) {
    if (key == "containerPolicies") read(f, out.container_policies);
  });
}

void read(od::value& v, RecommendedContainerResources& out) {
  for_each_field(v, [&](std::string_view key, od::value& f) {
    if (key == "containerName")
      read(f, out.container_name);
    else if (key == "target")
      read(f, out.target);
    else if (key == "lowerBound")
      read(f, out.lower_bound);
    else if (key == "upperBound")
      read(f, out.upper_bound);
    else if (key == "uncappedTarget")
      read(f, out.uncapped_target);
  });
}

void read(od::value& v, RecommendedPodResources& out) {
  for_each_field(v, [&](std::string_view key, od::value& f) {
    if (key == "containerRecommendations") read(f, out.container_recommendations);
  });
}

void read(od::value& v, PolicyCondition& out) {
  for_each_field(v, [&](std::string_view key, od::value& f) {
    if (key == "type")
      read(f, out.type);
    else if (key == "status")
      read(f, out.status);
    else if (key == "lastTransitionTime")
      read(f, out.last_transition_time);
    else if (key == "reason")
      read(f, out.reason);
    else if (key == "message")
      read(f, out.message);
  });
}

void read(od::value& v, PolicyStatus& out) {
  for_each_field(v, [&](std::string_view key, od::value& f) {
    if (key == "recommendation")
      read(f, out.recommendation);
    else if (key == "conditions")
      read(f, out.conditions);
  });
}

void read(od::value& v, UpdatePolicy& out) {
  for_each_field(v, [&](std::string_view key, od::value& f) {
    if (key == "mode")
      read(f, out.mode);
    else if (key == "minReplicas")
      read(f, out.min_replicas);
    else if (key == "deferredTimeout")
      read(f, out.deferred_timeout);
    else if (key == "inProgressTimeout")
      read(f, out.in_progress_timeout);
  });
}

void read(od::value& v, RecommenderOverrides& out) {
  for_each_field(v, [&](std::string_view key, od::value& f) {
    if (key == "cpuPercentile")
      read(f, out.cpu_percentile);
    else if (key == "memoryPercentile")
      read(f, out.memory_percentile);
    else if (key == "lowerBoundPercentile")
      read(f, out.lower_bound_percentile);
    else if (key == "upperBoundPercentile")
      read(f, out.upper_bound_percentile);
    else if (key == "safetyMarginFraction")
      read(f, out.safety_margin_fraction);
  });
}

void read(od::value& v, VerticalScalingPolicySpec& out) {
  for_each_field(v, [&](std::string_view key, od::value& f) {
    if (key == "targetRef")
      read(f, out.target_ref);
    else if (key == "selector")
      read(f, out.selector);
    else if (key == "updatePolicy")
      read(f, out.update_policy);
    else if (key == "resourcePolicy")
      read(f, out.resource_policy);
    else if (key == "recommender")
      read(f, out.recommender);
    else if (key == "startupBoost")
      read(f, out.startup_boost);
  });
}

void read(od::value& v, VpaUpdatePolicy& out) {
  for_each_field(v, [&](std::string_view key, od::value& f) {
    if (key == "updateMode")
      read(f, out.update_mode);
    else if (key == "minReplicas")
      read(f, out.min_replicas);
  });
}

void read(od::value& v, VpaRecommenderSelector& out) {
  for_each_field(v, [&](std::string_view key, od::value& f) {
    if (key == "name") read(f, out.name);
  });
}

void read(od::value& v, VerticalPodAutoscalerSpec& out) {
  for_each_field(v, [&](std::string_view key, od::value& f) {
    if (key == "targetRef")
      read(f, out.target_ref);
    else if (key == "updatePolicy")
      read(f, out.update_policy);
    else if (key == "resourcePolicy")
      read(f, out.resource_policy);
    else if (key == "recommenders")
      read(f, out.recommenders);
    else if (key == "startupBoost")
      read(f, out.startup_boost);
  });
}

template <class T>
void read_object(od::value& v, T& out) {
  for_each_field(v, [&](std::string_view key, od::value& f) {
    if (key == "metadata")
      read(f, out.metadata);
    else if (key == "spec")
      read(f, out.spec);
    else if (key == "status")
      read(f, out.status);
  });
}

void read(od::value& v, VerticalScalingPolicy& out) { read_object(v, out); }
void read(od::value& v, VerticalPodAutoscaler& out) { read_object(v, out); }

namespace {

template <class T>
T decode_root(std::string_view json) {
  T out;
  kube::json::decode_root(json, [&](od::value& root) { read(root, out); });
  return out;
}

template <class T>
Decoded<T> decode_tolerant(std::string_view json) {
  Decoded<T> result;
  try {
    result.object = decode_root<T>(json);
  } catch (const kube::DecodeError& e) {
    result.error = e.what();
    try {
      result.object.metadata = kube::decode<kube::PartialObjectMetadata>(json).metadata;
    } catch (const kube::DecodeError&) {
      // Not even the metadata: the caller can only log it.
    }
  }
  return result;
}

}  // namespace

Decoded<VerticalScalingPolicy> decode_vertical_scaling_policy(std::string_view json) {
  return decode_tolerant<VerticalScalingPolicy>(json);
}
Decoded<VerticalPodAutoscaler> decode_vertical_pod_autoscaler(std::string_view json) {
  return decode_tolerant<VerticalPodAutoscaler>(json);
}
VerticalScalingPolicy decode_vertical_scaling_policy_or_throw(std::string_view json) {
  return decode_root<VerticalScalingPolicy>(json);
}
VerticalPodAutoscaler decode_vertical_pod_autoscaler_or_throw(std::string_view json) {
  return decode_root<VerticalPodAutoscaler>(json);
}

}  // namespace tailor::policy
