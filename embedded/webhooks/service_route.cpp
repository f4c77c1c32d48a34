#include "embedded/webhooks/service_route.h"

#include "embedded/controllers/endpoint_slices.h"
#include "embedded/controllers/objects.h"
#include "embedded/storage/object_meta.h"

namespace tailor::embedded::webhooks {
namespace {

const bj::array* array_at(const bj::object& object, std::string_view dotted_path) {
  const bj::value* v = find_path(object, dotted_path);
  return v && v->is_array() ? &v->as_array() : nullptr;
}

// The Service's port whose number the reference names (findServicePort upstream).
const bj::object* service_port(const bj::object& service, int number) {
  const bj::array* ports = array_at(service, "spec.ports");
  if (!ports) return nullptr;
  for (const bj::value& p : *ports) {
    const bj::value* port = p.is_object() ? p.as_object().if_contains("port") : nullptr;
    if (port && port->is_number() && port->to_number<int>() == number) return &p.as_object();
  }
  return nullptr;
}

// As the endpoints controller counts a pod ready: an IP, not being deleted, condition Ready True.
bool ready(const bj::object& pod) {
  return !string_at(pod, "status.podIP").empty() && !is_terminating(pod) && is_pod_ready(pod);
}

ServiceRoute failure(std::string error) {
  ServiceRoute route;
  route.error = std::move(error);
  return route;
}

}  // namespace

bj::value pod_selector(const bj::object& service) {
  const bj::value* selector = find_path(service, "spec.selector");
  if (!selector || !selector->is_object() || selector->as_object().empty()) return nullptr;
  return bj::object{{"matchLabels", *selector}};
}

ServiceRoute route_to_service(const ServiceReference& reference, const bj::object* service,
                              const std::vector<const bj::object*>& pods) {
  std::string quoted = "\"" + reference.name + "\"";
  if (!service) return failure("service " + quoted + " not found");
  const bj::object* port = service_port(*service, reference.port);
  if (!port) {
    return failure("no service port " + std::to_string(reference.port) + " found for service " +
                   quoted);
  }
  std::string type = string_at(*service, "spec.type");
  if (!type.empty() && type != "ClusterIP" && type != "NodePort" && type != "LoadBalancer")
    return failure("unsupported service type \"" + type + "\"");
  const bj::value selector = pod_selector(*service);
  const std::optional<LabelSelector> wanted = parse_selector(&selector);
  for (const bj::object* pod : pods) {
    if (!pod || !wanted || !wanted->matches(*pod) || !ready(*pod)) continue;
    if (const auto number = static_cast<int>(find_port(*pod, *port)); number > 0)
      return {string_at(*pod, "status.podIP"), number, meta_string(*pod, "name"), ""};
  }
  return failure("no endpoints available for service " + quoted);
}

}  // namespace tailor::embedded::webhooks
