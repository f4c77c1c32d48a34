#include "embedded/controllers/endpoint_slices.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>

#include "embedded/controllers/api_writes.h"
#include "embedded/controllers/objects.h"

namespace tailor::embedded {
namespace {

std::string protocol_of(const bj::object& port) {
  const std::string protocol = string_at(port, "protocol");
  return protocol.empty() ? "TCP" : protocol;
}

// The pod's ports for the Service (each service port whose targetPort resolves), in the Service's
// order.
bj::array pod_ports(const bj::object& service, const bj::object& pod) {
  bj::array out;
  for (const bj::value& p : array_at(service, "spec.ports")) {
    if (!p.is_object()) continue;
    const std::int64_t number = find_port(pod, p.as_object());
    if (number <= 0) continue;
    bj::object port{
        {"name", string_at(p, "name")}, {"port", number}, {"protocol", protocol_of(p.as_object())}};
    if (const bj::value* app = p.as_object().if_contains("appProtocol"); app && app->is_string()) {
      port["appProtocol"] = *app;
    }
    out.push_back(std::move(port));
  }
  return out;
}

// ShouldPodBeInEndpoints: not terminal, an IP; terminating ones only when `include_terminating`.
bool in_endpoints(const bj::object& pod, bool include_terminating) {
  const std::string phase = string_at(pod, "status.phase");
  if (phase == "Succeeded" || phase == "Failed") return false;
  if (string_at(pod, "status.podIP").empty()) return false;
  return include_terminating || !is_terminating(pod);
}

bool selected(const bj::object& service, const bj::object& pod) {
  const bj::value* selector = find_path(service, "spec.selector");
  if (!selector || !selector->is_object() || selector->as_object().empty()) return false;
  if (meta_string(pod, "namespace") != meta_string(service, "namespace")) return false;
  const bj::value wanted = bj::object{{"matchLabels", *selector}};
  return selector_matches(&wanted, pod);
}

bool headless(const bj::object& service) { return string_at(service, "spec.clusterIP") == "None"; }

bool publish_not_ready(const bj::object& service) {
  const bj::value* v = find_path(service, "spec.publishNotReadyAddresses");
  return v && v->is_bool() && v->as_bool();
}

// ShouldSetHostname: the pod names the Service as its subdomain.
bool sets_hostname(const bj::object& service, const bj::object& pod) {
  return !string_at(pod, "spec.hostname").empty() &&
         string_at(pod, "spec.subdomain") == meta_string(service, "name");
}

bj::object target_ref(const bj::object& pod) {
  return {{"kind", "Pod"},
          {"namespace", meta_string(pod, "namespace")},
          {"name", meta_string(pod, "name")},
          {"uid", meta_string(pod, "uid")}};
}

// FNV-1a of the text, as five base-36 characters: a stable name suffix for a port set.
std::string short_hash(const std::string& text) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  std::string out;
  for (int i = 0; i < 5; ++i, h /= 36) out += "0123456789abcdefghijklmnopqrstuvwxyz"[h % 36];
  return out;
}

// The Service's labels and the ones the controllers add.
bj::object service_labels(const bj::object& service) {
  bj::object labels;
  if (const bj::value* l = find_path(service, "metadata.labels"); l && l->is_object()) {
    labels = l->as_object();
  }
  if (headless(service)) labels["service.kubernetes.io/headless"] = "";
  return labels;
}

// The pods that are endpoints, by name (a stable order), with their ports.
std::vector<std::pair<const bj::object*, bj::array>> endpoint_pods(
    const bj::object& service, const std::vector<const bj::object*>& pods,
    bool include_terminating) {
  std::vector<std::pair<const bj::object*, bj::array>> out;
  for (const bj::object* pod : pods) {
    if (!pod || !selected(service, *pod) || !in_endpoints(*pod, include_terminating)) continue;
    out.emplace_back(pod, pod_ports(service, *pod));
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return meta_string(*a.first, "name") < meta_string(*b.first, "name");
  });
  return out;
}

}  // namespace

std::int64_t find_port(const bj::object& pod, const bj::object& service_port) {
  const bj::value* target = service_port.if_contains("targetPort");
  if (!target || target->is_null()) return int_at(service_port, "port");
  if (target->is_int64()) return target->as_int64();
  if (!target->is_string()) return 0;
  for (const bj::value& c : array_at(pod, "spec.containers")) {
    if (!c.is_object()) continue;
    for (const bj::value& p : array_at(c.as_object(), "ports")) {
      if (!p.is_object()) continue;
      if (string_at(p, "name") == target->as_string() &&
          protocol_of(p.as_object()) == protocol_of(service_port)) {
        return int_at(p.as_object(), "containerPort");
      }
    }
  }
  return 0;
}

std::vector<bj::object> desired_endpoint_slices(const bj::object& service,
                                                const std::vector<const bj::object*>& pods) {
  const std::string name = meta_string(service, "name");
  // Pods grouped by their port set (its JSON text), in name order within each group.
  std::map<std::string, std::pair<bj::array, bj::array>>
      groups;  // ports text -> (ports, endpoints)
  for (const auto& [pod, ports] : endpoint_pods(service, pods, true)) {
    const bool serving = is_pod_ready(*pod);
    const bool terminating = is_terminating(*pod);
    const bool ready = publish_not_ready(service) || (serving && !terminating);
    bj::object endpoint{
        {"addresses", bj::array{bj::string(string_at(*pod, "status.podIP"))}},
        {"conditions",
         bj::object{{"ready", ready}, {"serving", serving}, {"terminating", terminating}}},
        {"targetRef", target_ref(*pod)}};
    if (const std::string node = string_at(*pod, "spec.nodeName"); !node.empty()) {
      endpoint["nodeName"] = node;
    }
    if (sets_hostname(service, *pod)) endpoint["hostname"] = string_at(*pod, "spec.hostname");
    auto& group = groups[bj::serialize(ports)];
    group.first = ports;
    group.second.push_back(std::move(endpoint));
  }
  bj::object labels = service_labels(service);
  labels["kubernetes.io/service-name"] = name;
  labels["endpointslice.kubernetes.io/managed-by"] = kEndpointSliceManagedBy;
  auto slice = [&](const std::string& slice_name, bj::array endpoints, const bj::array* ports) {
    bj::object s{{"apiVersion", "discovery.k8s.io/v1"},
                 {"kind", "EndpointSlice"},
                 {"metadata", bj::object{{"name", slice_name},
                                         {"namespace", meta_string(service, "namespace")},
                                         {"labels", labels},
                                         {"ownerReferences", bj::array{controller_reference(
                                                                 services_resource(), service)}}}},
                 {"addressType", "IPv4"},
                 {"endpoints", std::move(endpoints)}};
    if (ports) s["ports"] = *ports;
    return s;
  };
  std::vector<bj::object> out;
  if (groups.empty()) {  // upstream's placeholder: no endpoints, no ports
    out.push_back(slice(name + "-" + short_hash(""), bj::array{}, nullptr));
    return out;
  }
  for (auto& [key, group] : groups) {
    const std::string base = name + "-" + short_hash(key);
    const bj::array& all = group.second;
    for (std::size_t start = 0, n = 0; start < all.size(); start += kMaxEndpointsPerSlice, ++n) {
      const std::size_t end = std::min(all.size(), start + kMaxEndpointsPerSlice);
      out.push_back(slice(n == 0 ? base : base + "-" + std::to_string(n),
                          bj::array(all.begin() + start, all.begin() + end), &group.first));
    }
  }
  std::sort(out.begin(), out.end(), [](const bj::object& a, const bj::object& b) {
    return meta_string(a, "name") < meta_string(b, "name");
  });
  return out;
}

bj::object desired_endpoints(const bj::object& service,
                             const std::vector<const bj::object*>& pods) {
  const bool tolerate_unready = publish_not_ready(service);
  const bool portless_headless = headless(service) && array_at(service, "spec.ports").empty();
  // Port set text -> (ports, ready addresses by IP, not-ready addresses by IP).
  std::map<std::string, std::tuple<bj::array, std::map<std::string, bj::object>,
                                   std::map<std::string, bj::object>>>
      subsets;
  for (const auto& [pod, ports] : endpoint_pods(service, pods, tolerate_unready)) {
    if (ports.empty() && !portless_headless) continue;
    const std::string ip = string_at(*pod, "status.podIP");
    bj::object address{{"ip", ip}, {"targetRef", target_ref(*pod)}};
    if (const std::string node = string_at(*pod, "spec.nodeName"); !node.empty()) {
      address["nodeName"] = node;
    }
    if (sets_hostname(service, *pod)) address["hostname"] = string_at(*pod, "spec.hostname");
    auto& [subset_ports, ready, not_ready] = subsets[bj::serialize(ports)];
    subset_ports = ports;
    (tolerate_unready || is_pod_ready(*pod) ? ready : not_ready)[ip] = std::move(address);
  }
  bj::array out;
  for (auto& [key, subset] : subsets) {
    auto& [ports, ready, not_ready] = subset;
    bj::object s;
    auto addresses = [](const std::map<std::string, bj::object>& by_ip) {
      bj::array a;
      for (const auto& [ip, address] : by_ip) a.push_back(address);
      return a;
    };
    if (!ready.empty()) s["addresses"] = addresses(ready);
    if (!not_ready.empty()) s["notReadyAddresses"] = addresses(not_ready);
    if (!ports.empty()) s["ports"] = ports;
    out.push_back(std::move(s));
  }
  bj::object endpoints{{"apiVersion", "v1"},
                       {"kind", "Endpoints"},
                       {"metadata", bj::object{{"name", meta_string(service, "name")},
                                               {"namespace", meta_string(service, "namespace")},
                                               {"labels", service_labels(service)}}}};
  if (!out.empty()) endpoints["subsets"] = std::move(out);
  return endpoints;
}

}  // namespace tailor::embedded
