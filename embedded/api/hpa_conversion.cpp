#include "embedded/api/hpa_conversion.h"

#include <string>
#include <string_view>

#include "embedded/storage/json_text.h"
#include "embedded/storage/object_meta.h"

namespace tailor::embedded {
namespace {

namespace bj = boost::json;

constexpr std::string_view kMetrics = "autoscaling.alpha.kubernetes.io/metrics";
constexpr std::string_view kCurrentMetrics = "autoscaling.alpha.kubernetes.io/current-metrics";
constexpr std::string_view kBehavior = "autoscaling.alpha.kubernetes.io/behavior";
constexpr std::string_view kConditions = "autoscaling.alpha.kubernetes.io/conditions";
// autoscaling/v1 formerly defaulted the target in the controller; the conversion now does.
constexpr int kDefaultCpuUtilization = 80;

// Copies from[from_key] to to[to_key] when present.
void copy(const bj::object& from, std::string_view from_key, bj::object& to,
          std::string_view to_key) {
  if (const bj::value* v = from.if_contains(from_key)) to[to_key] = *v;
}

void copy(const bj::object& from, bj::object& to, std::string_view key) {
  copy(from, key, to, key);
}

const bj::object& object_at(const bj::object& o, std::string_view key) {
  static const bj::object empty;
  const bj::value* v = o.if_contains(key);
  return v && v->is_object() ? v->as_object() : empty;
}

const bj::array& array_at(const bj::object& o, std::string_view key) {
  static const bj::array empty;
  const bj::value* v = o.if_contains(key);
  return v && v->is_array() ? v->as_array() : empty;
}

// {name, selector} of a v2 MetricIdentifier from the v1 (v2beta1-shaped) fields.
bj::object metric_identifier(const bj::object& v1, std::string_view selector_key) {
  bj::object id;
  copy(v1, "metricName", id, "name");
  copy(v1, selector_key, id, "selector");
  return id;
}

void identifier_to_v1(const bj::object& v2, bj::object& v1, std::string_view selector_key) {
  const bj::object& id = object_at(v2, "metric");
  copy(id, "name", v1, "metricName");
  copy(id, "selector", v1, selector_key);
}

// Resource and ContainerResource targets: utilization when given, else an average value.
bj::object resource_source_to_v2(const bj::object& in) {
  bj::object out;
  copy(in, out, "name");
  copy(in, out, "container");
  bj::object target{
      {"type", in.contains("targetAverageUtilization") ? "Utilization" : "AverageValue"}};
  copy(in, "targetAverageUtilization", target, "averageUtilization");
  copy(in, "targetAverageValue", target, "averageValue");
  out["target"] = std::move(target);
  return out;
}

bj::object metric_spec_to_v2(const bj::object& in) {
  std::string type = string_at(in, "type");
  bj::object out{{"type", type}};
  if (type == "Resource" || type == "ContainerResource") {
    std::string_view key = type == "Resource" ? "resource" : "containerResource";
    out[key] = resource_source_to_v2(object_at(in, key));
  } else if (type == "Pods") {
    const bj::object& p = object_at(in, "pods");
    bj::object target{{"type", "AverageValue"}};
    copy(p, "targetAverageValue", target, "averageValue");
    out["pods"] = bj::object{{"metric", metric_identifier(p, "selector")}, {"target", target}};
  } else if (type == "Object") {
    const bj::object& o = object_at(in, "object");
    bj::object target{{"type", o.contains("averageValue") ? "AverageValue" : "Value"}};
    copy(o, "targetValue", target, "value");
    copy(o, "averageValue", target, "averageValue");
    bj::object source{{"metric", metric_identifier(o, "selector")}, {"target", target}};
    copy(o, "target", source, "describedObject");
    out["object"] = std::move(source);
  } else if (type == "External") {
    const bj::object& e = object_at(in, "external");
    bj::object target{{"type", e.contains("targetValue") ? "Value" : "AverageValue"}};
    copy(e, "targetValue", target, "value");
    copy(e, "targetAverageValue", target, "averageValue");
    out["external"] =
        bj::object{{"metric", metric_identifier(e, "metricSelector")}, {"target", target}};
  }
  return out;
}

// A v2 MetricSpec (nested = "target") or MetricStatus (nested = "current") in v1's flat form,
// whose field names carry the same word as a prefix ("targetAverageValue", "currentValue");
// only Object's averageValue has none.
bj::object metric_to_v1(const bj::object& in, const std::string& nested) {
  std::string type = string_at(in, "type");
  bj::object out{{"type", type}};
  auto values_to_v1 = [&](const bj::object& source, bj::object& v1, std::string_view average) {
    const bj::object& values = object_at(source, nested);
    copy(values, "value", v1, nested + "Value");
    copy(values, "averageValue", v1, average);
  };
  if (type == "Resource" || type == "ContainerResource") {
    std::string_view key = type == "Resource" ? "resource" : "containerResource";
    const bj::object& r = object_at(in, key);
    bj::object resource;
    copy(r, resource, "name");
    copy(r, resource, "container");
    copy(object_at(r, nested), "averageUtilization", resource, nested + "AverageUtilization");
    copy(object_at(r, nested), "averageValue", resource, nested + "AverageValue");
    out[key] = std::move(resource);
  } else if (type == "Pods") {
    const bj::object& p = object_at(in, "pods");
    bj::object pods;
    identifier_to_v1(p, pods, "selector");
    copy(object_at(p, nested), "averageValue", pods, nested + "AverageValue");
    out["pods"] = std::move(pods);
  } else if (type == "Object") {
    const bj::object& o = object_at(in, "object");
    bj::object object;
    copy(o, "describedObject", object, "target");
    identifier_to_v1(o, object, "selector");
    values_to_v1(o, object, "averageValue");
    out["object"] = std::move(object);
  } else if (type == "External") {
    const bj::object& e = object_at(in, "external");
    bj::object external;
    identifier_to_v1(e, external, "metricSelector");
    values_to_v1(e, external, nested + "AverageValue");
    out["external"] = std::move(external);
  }
  return out;
}

bj::object metric_spec_to_v1(const bj::object& in) { return metric_to_v1(in, "target"); }

// MetricStatus: v1 names the current values current*; v2 nests them in "current".
bj::object metric_status_to_v2(const bj::object& in) {
  std::string type = string_at(in, "type");
  bj::object out{{"type", type}};
  auto with_current = [](const bj::object& from, std::string_view value_key,
                         std::string_view average_key) {
    bj::object current;
    copy(from, "currentAverageUtilization", current, "averageUtilization");
    if (!value_key.empty()) copy(from, value_key, current, "value");
    copy(from, average_key, current, "averageValue");
    return current;
  };
  if (type == "Resource" || type == "ContainerResource") {
    std::string_view key = type == "Resource" ? "resource" : "containerResource";
    const bj::object& r = object_at(in, key);
    bj::object status{{"current", with_current(r, "", "currentAverageValue")}};
    copy(r, status, "name");
    copy(r, status, "container");
    out[key] = std::move(status);
  } else if (type == "Pods") {
    const bj::object& p = object_at(in, "pods");
    out["pods"] = bj::object{{"metric", metric_identifier(p, "selector")},
                             {"current", with_current(p, "", "currentAverageValue")}};
  } else if (type == "Object") {
    const bj::object& o = object_at(in, "object");
    bj::object status{{"metric", metric_identifier(o, "selector")},
                      {"current", with_current(o, "currentValue", "averageValue")}};
    copy(o, "target", status, "describedObject");
    out["object"] = std::move(status);
  } else if (type == "External") {
    const bj::object& e = object_at(in, "external");
    out["external"] =
        bj::object{{"metric", metric_identifier(e, "metricSelector")},
                   {"current", with_current(e, "currentValue", "currentAverageValue")}};
  }
  return out;
}

bj::object metric_status_to_v1(const bj::object& in) { return metric_to_v1(in, "current"); }

bool is_cpu_resource(const bj::object& metric) {
  return string_at(metric, "type") == "Resource" && string_at(metric, "resource.name") == "cpu";
}

bj::object cpu_utilization_metric(const bj::value& percent) {
  return {{"type", "Resource"},
          {"resource", bj::object{{"name", "cpu"},
                                  {"target", bj::object{{"type", "Utilization"},
                                                        {"averageUtilization", percent}}}}}};
}

// Removes the annotation and returns its JSON array (empty when absent, not an array, or not JSON
// as the API server reads it: 1e999 would otherwise be stored as Infinity).
bj::array take_array(bj::object& annotations, std::string_view key) {
  const bj::value* v = annotations.if_contains(key);
  if (!v) return {};
  bj::array out;
  if (v->is_string()) {
    boost::system::error_code ec;
    bj::value parsed = parse_json_text(v->as_string(), ec);
    if (!ec && parsed.is_array()) out = std::move(parsed.as_array());
  }
  annotations.erase(key);
  return out;
}

bj::array mapped(const bj::array& in, bj::object (*f)(const bj::object&)) {
  bj::array out;
  for (const bj::value& v : in) {
    if (v.is_object()) out.push_back(f(v.as_object()));
  }
  return out;
}

// Object metadata without the round-trip annotations (an empty annotations map is dropped).
bj::object metadata_without_round_trip(const bj::object& object) {
  bj::object meta = object_at(object, "metadata");
  if (bj::value* a = meta.if_contains("annotations"); a && a->is_object()) {
    for (std::string_view key : {kMetrics, kCurrentMetrics, kBehavior, kConditions}) {
      a->as_object().erase(key);
    }
    if (a->as_object().empty()) meta.erase("annotations");
  }
  return meta;
}

}  // namespace

bj::object hpa_v1_to_v2(const bj::object& v1) {
  bj::object meta = object_at(v1, "metadata");
  bj::object annotations = object_at(meta, "annotations");
  bj::array other_metrics = mapped(take_array(annotations, kMetrics), metric_spec_to_v2);
  bj::array current_metrics = mapped(take_array(annotations, kCurrentMetrics), metric_status_to_v2);
  bj::array conditions = take_array(annotations, kConditions);
  const bj::value* behavior_text = annotations.if_contains(kBehavior);
  bj::value behavior;
  if (behavior_text && behavior_text->is_string()) {
    boost::system::error_code ec;
    behavior = parse_json_text(behavior_text->as_string(), ec);
    if (ec || !behavior.is_object()) behavior = nullptr;
  }
  annotations.erase(kBehavior);
  if (annotations.empty()) {
    meta.erase("annotations");
  } else {
    meta["annotations"] = std::move(annotations);
  }

  const bj::object& spec1 = object_at(v1, "spec");
  bj::object spec;
  copy(spec1, spec, "scaleTargetRef");
  copy(spec1, spec, "minReplicas");
  copy(spec1, spec, "maxReplicas");
  bj::array metrics = std::move(other_metrics);
  if (const bj::value* cpu = spec1.if_contains("targetCPUUtilizationPercentage")) {
    metrics.push_back(cpu_utilization_metric(*cpu));
  }
  if (metrics.empty()) metrics.push_back(cpu_utilization_metric(kDefaultCpuUtilization));
  spec["metrics"] = std::move(metrics);
  if (behavior.is_object()) spec["behavior"] = std::move(behavior);

  bj::object v2{{"apiVersion", "autoscaling/v2"},
                {"kind", "HorizontalPodAutoscaler"},
                {"metadata", std::move(meta)},
                {"spec", std::move(spec)}};
  if (const bj::value* s = v1.if_contains("status"); s && s->is_object()) {
    const bj::object& status1 = s->as_object();
    bj::object status;
    for (std::string_view key :
         {"observedGeneration", "lastScaleTime", "currentReplicas", "desiredReplicas"}) {
      copy(status1, status, key);
    }
    // The annotation's current metrics carry more than currentCPUUtilizationPercentage.
    if (current_metrics.empty()) {
      if (const bj::value* cpu = status1.if_contains("currentCPUUtilizationPercentage")) {
        current_metrics.push_back(bj::object{
            {"type", "Resource"},
            {"resource",
             bj::object{{"name", "cpu"}, {"current", bj::object{{"averageUtilization", *cpu}}}}}});
      }
    }
    if (!current_metrics.empty()) status["currentMetrics"] = std::move(current_metrics);
    if (!conditions.empty()) status["conditions"] = std::move(conditions);
    v2["status"] = std::move(status);
  }
  return v2;
}

bj::object hpa_v2_to_v1(const bj::object& v2) {
  bj::object meta = metadata_without_round_trip(v2);
  bj::object annotations = object_at(meta, "annotations");

  const bj::object& spec2 = object_at(v2, "spec");
  bj::object spec;
  copy(spec2, spec, "scaleTargetRef");
  copy(spec2, spec, "minReplicas");
  copy(spec2, spec, "maxReplicas");
  bj::array other_metrics;
  for (const bj::value& m : array_at(spec2, "metrics")) {
    if (!m.is_object()) continue;
    const bj::object& metric = m.as_object();
    const bj::object& target = object_at(object_at(metric, "resource"), "target");
    if (is_cpu_resource(metric) && target.contains("averageUtilization")) {
      if (!spec.contains("targetCPUUtilizationPercentage")) {
        spec["targetCPUUtilizationPercentage"] = target.at("averageUtilization");
      }
      continue;
    }
    other_metrics.push_back(metric_spec_to_v1(metric));
  }
  if (!other_metrics.empty()) annotations[kMetrics] = bj::serialize(other_metrics);
  if (const bj::value* b = spec2.if_contains("behavior"); b && b->is_object()) {
    annotations[kBehavior] = bj::serialize(*b);
  }

  bj::object v1{{"apiVersion", "autoscaling/v1"}, {"kind", "HorizontalPodAutoscaler"}};
  bj::object status;
  if (const bj::value* s = v2.if_contains("status"); s && s->is_object()) {
    const bj::object& status2 = s->as_object();
    for (std::string_view key :
         {"observedGeneration", "lastScaleTime", "currentReplicas", "desiredReplicas"}) {
      copy(status2, status, key);
    }
    const bj::array& current = array_at(status2, "currentMetrics");
    if (!current.empty()) {
      for (const bj::value& m : current) {
        if (!m.is_object() || !is_cpu_resource(m.as_object())) continue;
        const bj::object& c = object_at(object_at(m.as_object(), "resource"), "current");
        if (c.contains("averageUtilization")) {
          status["currentCPUUtilizationPercentage"] = c.at("averageUtilization");
        }
      }
      annotations[kCurrentMetrics] = bj::serialize(mapped(current, metric_status_to_v1));
    }
    const bj::array& conditions = array_at(status2, "conditions");
    if (!conditions.empty()) annotations[kConditions] = bj::serialize(conditions);
  }
  if (!annotations.empty()) meta["annotations"] = std::move(annotations);
  v1["metadata"] = std::move(meta);
  v1["spec"] = std::move(spec);
  if (v2.contains("status")) v1["status"] = std::move(status);
  return v1;
}

}  // namespace tailor::embedded
