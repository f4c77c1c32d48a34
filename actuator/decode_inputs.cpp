#include "actuator/decode_inputs.h"

#include "kube/model/json_root.h"

namespace tailor::actuator {

using kube::json::for_each_element;
using kube::json::for_each_field;
using kube::json::read;
namespace od = simdjson::ondemand;

void read(od::value& v, LimitRangeItem& out) {
  for_each_field(v, [&](std::string_view key, od::value& f) {
    if (key == "type")
      read(f, out.type);
    else if (key == "max")
      read(f, out.max);
    else if (key == "min")
      read(f, out.min);
    else if (key == "default")
      read(f, out.default_limit);
    else if (key == "defaultRequest")
      read(f, out.default_request);
    else if (key == "maxLimitRequestRatio")
      read(f, out.max_limit_request_ratio);
  });
}

namespace {

void read_limits(od::value& spec, std::vector<LimitRangeItem>& out) {
  for_each_field(spec, [&](std::string_view key, od::value& f) {
    if (key == "limits") read(f, out);
  });
}

void read_target(od::value& v, policy::CrossVersionObjectReference& out) {
  for_each_field(v, [&](std::string_view key, od::value& f) {
    if (key == "apiVersion")
      read(f, out.api_version);
    else if (key == "kind")
      read(f, out.kind);
    else if (key == "name")
      read(f, out.name);
  });
}

// {"type": "Resource", "resource": {"name": "cpu", ...}} -> "cpu";
// {"type": "ContainerResource", "containerResource": {"name": "cpu", "container": "app"}}
// -> "app/cpu" (only that container's utilization is the HPA's signal).
void read_metric(od::value& v, std::vector<std::string>& resources) {
  for_each_field(v, [&](std::string_view key, od::value& f) {
    if (key != "resource" && key != "containerResource") return;
    std::string name, container;
    for_each_field(f, [&](std::string_view inner, od::value& g) {
      if (inner == "name")
        read(g, name);
      else if (inner == "container")
        read(g, container);
    });
    resources.push_back(key == "containerResource" && !container.empty() ? container + "/" + name
                                                                         : name);
  });
}

void read_hpa_spec(od::value& v, HorizontalScaler& out) {
  bool has_metrics = false;
  for_each_field(v, [&](std::string_view key, od::value& f) {
    if (key == "scaleTargetRef") {
      read_target(f, out.scale_target_ref);
    } else if (key == "metrics") {
      for_each_element(f, [&](od::value& m) {
        has_metrics = true;
        read_metric(m, out.resources);
      });
    }
  });
  // The API server defaults an HPA without metrics to 80% average CPU utilization.
  if (!has_metrics) out.resources.push_back("cpu");
}

void read_name(od::value& meta, HorizontalScaler& out) {
  for_each_field(meta, [&](std::string_view key, od::value& f) {
    if (key == "name")
      read(f, out.name);
    else if (key == "namespace")
      read(f, out.namespace_);
  });
}

}  // namespace

std::vector<LimitRangeItem> decode_limit_range(std::string_view json) {
  std::vector<LimitRangeItem> out;
  kube::json::decode_root(json, [&](od::value& root) {
    for_each_field(root, [&](std::string_view key, od::value& f) {
      if (key == "spec") read_limits(f, out);
    });
  });
  return out;
}

HorizontalScaler decode_horizontal_pod_autoscaler(std::string_view json) {
  HorizontalScaler out;
  kube::json::decode_root(json, [&](od::value& root) {
    for_each_field(root, [&](std::string_view key, od::value& f) {
      if (key == "metadata")
        read_name(f, out);
      else if (key == "spec")
        read_hpa_spec(f, out);
    });
  });
  return out;
}

}  // namespace tailor::actuator
