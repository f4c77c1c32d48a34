// autoscaling/v1 and autoscaling/v2 HorizontalPodAutoscalers, every field (k8s.io/api
// autoscaling types.go). v2 is stored and v1 served from it: v1 bodies are checked against v1's
// own fields, since the conversion would lose what v1 does not know.
#include "embedded/api/known_fields_parts.h"

namespace tailor::embedded::known {
namespace {

const KnownFields& cross_version_object_reference() {  // scaleTargetRef, describedObject
  static const KnownFields f = fields({"kind", "name", "apiVersion"});
  return f;
}

const KnownFields& metric_identifier() {
  static const KnownFields f = fields({"name"}, {{"selector", &label_selector()}});
  return f;
}

const KnownFields& metric_target() {
  static const KnownFields f = fields({"type", "value", "averageValue", "averageUtilization"});
  return f;
}

const KnownFields& metric_value_status() {
  static const KnownFields f = fields({"value", "averageValue", "averageUtilization"});
  return f;
}

// A metric source's fields, the same in specs (with a target) and statuses (with a current
// value).
struct MetricSources {
  KnownFields resource, container_resource, pods, object, external;
};

MetricSources metric_sources(const char* value_field, const KnownFields& value) {
  return {fields({"name"}, {{value_field, &value}}),
          fields({"name", "container"}, {{value_field, &value}}),
          fields({}, {{"metric", &metric_identifier()}, {value_field, &value}}),
          fields({}, {{"describedObject", &cross_version_object_reference()},
                      {"metric", &metric_identifier()},
                      {value_field, &value}}),
          fields({}, {{"metric", &metric_identifier()}, {value_field, &value}})};
}

KnownFields metric(const MetricSources& s) {
  return fields({"type"}, {{"resource", &s.resource},
                           {"containerResource", &s.container_resource},
                           {"pods", &s.pods},
                           {"object", &s.object},
                           {"external", &s.external}});
}

const KnownFields& metric_spec() {
  static const MetricSources sources = metric_sources("target", metric_target());
  static const KnownFields f = metric(sources);
  return f;
}

const KnownFields& metric_status() {
  static const MetricSources sources = metric_sources("current", metric_value_status());
  static const KnownFields f = metric(sources);
  return f;
}

const KnownFields& scaling_rules() {
  static const KnownFields policy = fields({"type", "value", "periodSeconds"});
  static const KnownFields f =
      fields({"stabilizationWindowSeconds", "selectPolicy", "tolerance"}, {{"policies", &policy}});
  return f;
}

const KnownFields& hpa_behavior() {
  static const KnownFields f =
      fields({}, {{"scaleUp", &scaling_rules()}, {"scaleDown", &scaling_rules()}});
  return f;
}

const KnownFields& hpa_condition() {
  static const KnownFields f =
      fields({"type", "status", "lastTransitionTime", "reason", "message"});
  return f;
}

}  // namespace

const KnownFields& hpa_v1_spec() {
  static const KnownFields f =
      fields({"minReplicas", "maxReplicas", "targetCPUUtilizationPercentage"},
             {{"scaleTargetRef", &cross_version_object_reference()}});
  return f;
}

const KnownFields& hpa_v1_status() {
  static const KnownFields f = fields({"observedGeneration", "lastScaleTime", "currentReplicas",
                                       "desiredReplicas", "currentCPUUtilizationPercentage"});
  return f;
}

const KnownFields& hpa_v2_spec() {
  static const KnownFields f =
      fields({"minReplicas", "maxReplicas"}, {{"scaleTargetRef", &cross_version_object_reference()},
                                              {"metrics", &metric_spec()},
                                              {"behavior", &hpa_behavior()}});
  return f;
}

const KnownFields& hpa_v2_status() {
  static const KnownFields f =
      fields({"observedGeneration", "lastScaleTime", "currentReplicas", "desiredReplicas"},
             {{"currentMetrics", &metric_status()}, {"conditions", &hpa_condition()}});
  return f;
}

}  // namespace tailor::embedded::known
