// autoscaling/v2 HorizontalPodAutoscalers are stored, defaulted and validated as kube-apiserver
// does, and printed with kubectl's columns; no scaling loop runs (Tailor only needs to see which
// resources an HPA scales on, so it can leave them alone).
#include <boost/json.hpp>

#include "embedded/api/tables.h"
#include "embedded/controllers/handlers.h"
#include "embedded/controllers/hpa_metrics.h"
#include "embedded/controllers/objects.h"
#include "kube/model/quantity.h"

namespace tailor::embedded {
namespace {

bool is_hpa(const ResourceInfo& r) {
  return r.group == "autoscaling" && r.resource == "horizontalpodautoscalers";
}

bj::object scaling_policy(const char* type, int value, int period) {
  return {{"type", type}, {"value", value}, {"periodSeconds", period}};
}

// GenerateHPAScaleUpRules / GenerateHPAScaleDownRules: unset fields of a given behavior take the
// controller's defaults; scale-down's stabilization window stays unset (the controller's flag
// decides it).
void default_scaling_rules(bj::object& behavior, std::string_view direction) {
  bool up = direction == "scaleUp";
  bj::object& rules = object_field(behavior, direction);
  if (up) fill(rules, "stabilizationWindowSeconds", 0);
  fill(rules, "selectPolicy", "Max");
  fill(rules, "policies",
       up ? bj::array{scaling_policy("Pods", 4, 15), scaling_policy("Percent", 100, 15)}
          : bj::array{scaling_policy("Percent", 100, 15)});
}

// SetDefaults_HorizontalPodAutoscaler (autoscaling/v2).
void default_hpa(bj::object& spec) {
  fill(spec, "minReplicas", 1);
  const bj::value* metrics = spec.if_contains("metrics");
  if (!metrics || !metrics->is_array() || metrics->as_array().empty()) {
    spec["metrics"] = bj::array{bj::object{
        {"type", "Resource"},
        {"resource",
         bj::object{{"name", "cpu"},
                    {"target", bj::object{{"type", "Utilization"}, {"averageUtilization", 80}}}}}}};
  }
  if (const bj::value* b = spec.if_contains("behavior"); b && b->is_object()) {
    default_scaling_rules(spec["behavior"].as_object(), "scaleUp");
    default_scaling_rules(spec["behavior"].as_object(), "scaleDown");
  }
}

std::string int_text(const bj::value* v) { return v ? bj::serialize(*v) : "0"; }

// validateHorizontalPodAutoscalerSpec: replica bounds, scaleTargetRef, metrics (hpa_metrics).
std::vector<FieldCause> spec_errors(const bj::object& o) {
  std::vector<FieldCause> causes;
  const bj::value* min = find_path(o, "spec.minReplicas");
  const bj::value* max = find_path(o, "spec.maxReplicas");
  std::int64_t max_replicas = max && max->is_int64() ? max->as_int64() : 0;
  if (min && min->is_int64() && min->as_int64() < 1) {
    causes.push_back({"FieldValueInvalid",
                      "Invalid value: " + int_text(min) + ": must be greater than or equal to 1",
                      "spec.minReplicas"});
  }
  if (max_replicas < 1) {
    causes.push_back({"FieldValueInvalid",
                      "Invalid value: " + int_text(max) + ": must be greater than 0",
                      "spec.maxReplicas"});
  }
  if (min && min->is_int64() && max_replicas < min->as_int64()) {
    causes.push_back(
        {"FieldValueInvalid",
         "Invalid value: " + int_text(max) + ": must be greater than or equal to `minReplicas`",
         "spec.maxReplicas"});
  }
  for (const char* field : {"kind", "name"}) {
    if (string_at(o, std::string("spec.scaleTargetRef.") + field).empty()) {
      causes.push_back(
          {"FieldValueRequired", "Required value", std::string("spec.scaleTargetRef.") + field});
    }
  }
  for (FieldCause& c : metric_errors(o)) causes.push_back(std::move(c));
  return causes;
}

// ---- printing (printHorizontalPodAutoscaler, formatHPAMetrics) ----

std::string quantity_text(const bj::value* v) {
  if (!v || !v->is_string()) return v ? bj::serialize(*v) : "0";
  auto q = kube::Quantity::try_parse(std::string_view(v->as_string()));
  return q ? q->to_string() : std::string(v->as_string());
}

// The current value of metric i from status.currentMetrics (same order as spec.metrics).
const bj::object* current_metric(const bj::object& hpa, std::size_t i, std::string_view source) {
  const bj::value* list = find_path(hpa, "status.currentMetrics");
  if (!list || !list->is_array() || list->as_array().size() <= i) return nullptr;
  const bj::value& m = list->as_array()[i];
  const bj::value* s = m.is_object() ? m.as_object().if_contains(source) : nullptr;
  return s && s->is_object() ? &s->as_object() : nullptr;
}

std::string value_pair(const bj::object* current, std::string_view field, const bj::value* target,
                       std::string_view suffix) {
  const bj::value* now = current ? find_path(*current, "current." + std::string(field)) : nullptr;
  return (now ? quantity_text(now) : "<unknown>") + "/" + quantity_text(target) +
         std::string(suffix);
}

// Resource and ContainerResource: "cpu: 40%/80%", "memory: <unknown>/500Mi".
std::string resource_target(const bj::object& source, const bj::object* current) {
  std::string name = string_at(source, "name") + ": ";
  if (const bj::value* avg = find_path(source, "target.averageValue")) {
    return name + value_pair(current, "averageValue", avg, "");
  }
  const bj::value* now = current ? find_path(*current, "current.averageUtilization") : nullptr;
  const bj::value* want = find_path(source, "target.averageUtilization");
  return name + (now ? bj::serialize(*now) + "%" : "<unknown>") + "/" +
         (want ? bj::serialize(*want) + "%" : "<auto>");
}

// External and Object: "<unknown>/10 (avg)" for an average value, "<unknown>/10" otherwise.
std::string value_target(const bj::object& source, const bj::object* current) {
  if (const bj::value* avg = find_path(source, "target.averageValue")) {
    return value_pair(current, "averageValue", avg, " (avg)");
  }
  return value_pair(current, "value", find_path(source, "target.value"), "");
}

std::string metric_target(const bj::object& hpa, const bj::object& metric, std::size_t i) {
  static const std::map<std::string, std::string> kSource = {
      {"Resource", "resource"},
      {"ContainerResource", "containerResource"},
      {"Pods", "pods"},
      {"Object", "object"},
      {"External", "external"}};
  std::string type = string_at(metric, "type");
  auto it = kSource.find(type);
  const bj::value* s = it == kSource.end() ? nullptr : metric.if_contains(it->second);
  if (!s || !s->is_object()) return "<unknown type>";
  const bj::object* current = current_metric(hpa, i, it->second);
  if (type == "Resource" || type == "ContainerResource") {
    return resource_target(s->as_object(), current);
  }
  if (type == "Pods") {
    return value_pair(current, "averageValue", find_path(s->as_object(), "target.averageValue"),
                      "");
  }
  return value_target(s->as_object(), current);
}

// At most two metrics, then "+ N more...".
std::string targets(const bj::object& hpa) {
  const bj::value* metrics = find_path(hpa, "spec.metrics");
  if (!metrics || !metrics->is_array() || metrics->as_array().empty()) return "<none>";
  const bj::array& list = metrics->as_array();
  std::string text;
  for (std::size_t i = 0; i < list.size() && i < 2; ++i) {
    if (i > 0) text += ", ";
    text += list[i].is_object() ? metric_target(hpa, list[i].as_object(), i) : "<unknown type>";
  }
  if (list.size() > 2) text += " + " + std::to_string(list.size() - 2) + " more...";
  return text;
}

bj::array hpa_row(const bj::object& hpa, kube::TimePoint now) {
  const bj::value* min = find_path(hpa, "spec.minReplicas");
  return {
      meta_string(hpa, "name"),
      string_at(hpa, "spec.scaleTargetRef.kind") + "/" + string_at(hpa, "spec.scaleTargetRef.name"),
      targets(hpa),
      min && min->is_int64() ? std::to_string(min->as_int64()) : "<unset>",
      int_at(hpa, "spec.maxReplicas", 0),
      int_at(hpa, "status.currentReplicas", 0),
      age_cell(hpa, now)};
}

Column text(std::string name, std::string description) {
  return {std::move(name), "string", "", std::move(description), 0};
}

}  // namespace

void default_horizontal_pod_autoscaler(AdmissionRequest& request) {
  if (!request.subresource.empty() || !is_hpa(request.resource)) return;
  default_hpa(object_field(request.object, "spec"));
}

void validate_horizontal_pod_autoscaler(AdmissionRequest& request) {
  const ResourceInfo& r = request.resource;
  if (!request.subresource.empty() || !is_hpa(r)) return;
  std::vector<FieldCause> causes = spec_errors(request.object);
  if (!causes.empty()) throw invalid(r.group, r.kind, meta_string(request.object, "name"), causes);
}

const Printer* autoscaler_printer(const ResourceInfo& resource) {
  static const Printer kPrinter{
      {name_column(),
       text("Reference",
            "scaleTargetRef points to the target resource to scale, and is used to the pods for "
            "which metrics should be collected, as well as to actually change the replica count."),
       text("Targets",
            "metrics contains the specifications for which to use to calculate the desired "
            "replica count (the maximum replica count across all metrics will be used)."),
       text("MinPods",
            "minReplicas is the lower limit for the number of replicas to which the autoscaler "
            "can scale down."),
       text("MaxPods",
            "maxReplicas is the upper limit for the number of replicas to which the autoscaler "
            "can scale up."),
       text("Replicas",
            "currentReplicas is current number of replicas of pods managed by this autoscaler, "
            "as last seen by the autoscaler."),
       age_column()},
      hpa_row};
  return is_hpa(resource) ? &kPrinter : nullptr;
}

}  // namespace tailor::embedded
