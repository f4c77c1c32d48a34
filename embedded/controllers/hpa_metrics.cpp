#include "embedded/controllers/hpa_metrics.h"

#include <boost/json.hpp>
#include <map>
#include <string>

#include "embedded/storage/field_errors.h"
#include "embedded/storage/object_meta.h"

namespace tailor::embedded {
namespace {

using Causes = std::vector<FieldCause>;

void required(Causes& out, const std::string& path, const std::string& why) {
  out.push_back({"FieldValueRequired", "Required value: " + why, path});
}

void unsupported_type(Causes& out, const std::string& path, const std::string& type) {
  out.push_back(
      not_supported(path, type, {"ContainerResource", "External", "Object", "Pods", "Resource"}));
}

// validateMetricTarget.
void target_errors(Causes& out, const bj::object& target, const std::string& path) {
  std::string type = string_at(target, "type");
  if (type.empty()) required(out, path + ".type", "must specify a metric target type");
  if (type != "Utilization" && type != "Value" && type != "AverageValue") {
    out.push_back({"FieldValueInvalid",
                   "Invalid value: \"" + type +
                       "\": must be either Utilization, Value, or "
                       "AverageValue",
                   path + ".type"});
  }
  const bj::value* u = target.if_contains("averageUtilization");
  if (u && u->is_int64() && u->as_int64() < 1) {
    out.push_back({"FieldValueInvalid",
                   "Invalid value: " + bj::serialize(*u) + ": must be greater than 0",
                   path + ".averageUtilization"});
  }
}

// validateResourceSource and validateContainerResourceSource.
void resource_errors(Causes& out, const bj::object& source, const std::string& path,
                     bool container) {
  if (string_at(source, "name").empty())
    required(out, path + ".name", "must specify a resource name");
  if (container && string_at(source, "container").empty()) {
    required(out, path + ".container", "must specify a container");
  }
  const bj::value* t = source.if_contains("target");
  bj::object target = t && t->is_object() ? t->as_object() : bj::object{};
  target_errors(out, target, path + ".target");
  bool utilization = target.contains("averageUtilization");
  bool value = target.contains("averageValue");
  if (!utilization && !value) {
    required(out, path + ".target.averageUtilization",
             "must set either a target raw value or a target utilization");
  }
  if (utilization && value) {
    out.push_back({"FieldValueForbidden",
                   "Forbidden: may not set both a target raw value and a target utilization",
                   path + ".target.averageValue"});
  }
}

// validateMetricSpec.
void metric_spec_errors(Causes& out, const bj::object& metric, const std::string& path) {
  static const std::map<std::string, std::string> kSource = {
      {"Object", "object"},
      {"External", "external"},
      {"Pods", "pods"},
      {"Resource", "resource"},
      {"ContainerResource", "containerResource"}};
  std::string type = string_at(metric, "type");
  if (type.empty()) required(out, path + ".type", "must specify a metric source type");
  auto it = kSource.find(type);
  if (it == kSource.end()) unsupported_type(out, path + ".type", type);
  for (const char* field : {"resource", "containerResource"}) {
    const bj::value* s = metric.if_contains(field);
    if (s && s->is_object()) {
      resource_errors(out, s->as_object(), path + "." + field,
                      std::string_view(field) == "containerResource");
    }
  }
  if (it == kSource.end()) return;
  const bj::value* present = metric.if_contains(it->second);
  if (!present || present->is_null()) {
    required(out, path + "." + it->second, "must populate information for the given metric source");
  }
}

}  // namespace

Causes metric_errors(const bj::object& hpa) {
  Causes out;
  const bj::value* metrics = find_path(hpa, "spec.metrics");
  if (!metrics || !metrics->is_array()) return out;
  const bj::array& list = metrics->as_array();
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (list[i].is_object()) {
      metric_spec_errors(out, list[i].as_object(), "spec.metrics[" + std::to_string(i) + "]");
    }
  }
  return out;
}

}  // namespace tailor::embedded
