#include "embedded/api/create_defaults.h"

#include <boost/json.hpp>
#include <string>
#include <string_view>

#include "embedded/api/pod_qos.h"
#include "embedded/api/pod_validation.h"

namespace tailor::embedded {
namespace {

namespace bj = boost::json;

void default_field(bj::object& o, std::string_view key, bj::value value) {
  if (!o.contains(key)) o[key] = std::move(value);
}

// As SetDefaults_Pod: a resource with a limit and no request requests its limit.
void default_requests_from_limits(bj::value& resources) {
  if (!resources.is_object()) return;
  const bj::value* found = resources.as_object().if_contains("limits");
  if (!found || !found->is_object() || found->as_object().empty()) return;
  bj::object limits = found->as_object();  // a copy: adding "requests" may move the members
  bj::value& requests = resources.as_object()["requests"];
  if (!requests.is_object()) requests = bj::object{};
  for (const auto& [name, quantity] : limits) {
    if (!requests.as_object().contains(name)) requests.as_object()[name] = quantity;
  }
}

void default_port_protocols(bj::object& container) {
  bj::value* ports = container.if_contains("ports");
  if (!ports || !ports->is_array()) return;
  for (bj::value& port : ports->as_array()) {
    if (port.is_object()) default_field(port.as_object(), "protocol", "TCP");
  }
}

void default_pod(bj::object& pod) {
  bj::value& spec = pod["spec"];
  if (!spec.is_object()) spec = bj::object{};
  bj::object& s = spec.as_object();
  default_field(s, "restartPolicy", "Always");
  default_field(s, "dnsPolicy", "ClusterFirst");
  default_field(s, "schedulerName", "default-scheduler");
  default_field(s, "terminationGracePeriodSeconds", 30);
  default_field(s, "securityContext", bj::object{});
  for (std::string_view list : {"initContainers", "containers"}) {
    bj::value* containers = s.if_contains(list);
    if (!containers || !containers->is_array()) continue;
    for (bj::value& container : containers->as_array()) {
      if (!container.is_object()) continue;
      bj::object& ct = container.as_object();
      default_field(ct, "terminationMessagePath", "/dev/termination-log");
      default_field(ct, "terminationMessagePolicy", "File");
      std::string image = ct.contains("image") && ct["image"].is_string()
                              ? std::string(ct["image"].as_string())
                              : "";
      bool latest = image.find(':') == std::string::npos || image.ends_with(":latest");
      default_field(ct, "imagePullPolicy", latest ? "Always" : "IfNotPresent");
      default_field(ct, "resources", bj::object{});
      default_requests_from_limits(ct["resources"]);
      default_port_protocols(ct);
    }
  }
  pod["status"] = bj::object{{"phase", "Pending"}, {"qosClass", pod_qos_class(pod)}};
}

}  // namespace

void apply_create_defaults(const ResourceInfo& r, bj::object& object) {
  if (!r.group.empty()) return;
  if (r.resource == "pods") {
    canonicalize_pod_quantities(object);  // as decoding leaves them
    default_pod(object);
  } else if (r.resource == "namespaces") {
    object["spec"] = bj::object{{"finalizers", bj::array{"kubernetes"}}};
    object["status"] = bj::object{{"phase", "Active"}};
  }
}

}  // namespace tailor::embedded
