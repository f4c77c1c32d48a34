// Defaulting of Services and Secrets (core/v1), as kube-apiserver applies SetDefaults_Service and
// SetDefaults_Secret to every create and update, plus the IP family fields its Service storage
// fills in on a single-stack IPv4 cluster.
#include <boost/json.hpp>

#include "embedded/controllers/handlers.h"
#include "embedded/controllers/objects.h"

namespace tailor::embedded {
namespace {

constexpr std::int64_t kDefaultClientIPServiceAffinitySeconds = 10800;  // 3 hours

bool is_empty_target_port(const bj::value* target) {
  if (!target || target->is_null()) return true;
  if (target->is_string()) return target->as_string().empty();
  return target->is_number() && target->to_number<std::int64_t>() == 0;
}

void default_ports(bj::object& spec) {
  bj::value* ports = spec.if_contains("ports");
  if (!ports || !ports->is_array()) return;
  for (bj::value& p : ports->as_array()) {
    if (!p.is_object()) continue;
    bj::object& port = p.as_object();
    fill(port, "protocol", "TCP");
    if (is_empty_target_port(port.if_contains("targetPort")) && port.contains("port")) {
      port["targetPort"] = port.at("port");
    }
  }
}

void default_session_affinity(bj::object& spec) {
  fill(spec, "sessionAffinity", "None");
  if (spec.at("sessionAffinity") == "None") spec.erase("sessionAffinityConfig");
  if (spec.at("sessionAffinity") != "ClientIP") return;
  if (!find_path(spec, "sessionAffinityConfig.clientIP.timeoutSeconds")) {
    spec["sessionAffinityConfig"] = bj::object{
        {"clientIP", bj::object{{"timeoutSeconds", kDefaultClientIPServiceAffinitySeconds}}}};
  }
}

// NodePort and LoadBalancer Services, and ClusterIP ones with external IPs, reach the cluster
// from outside (service.ExternallyAccessible).
bool externally_accessible(const bj::object& spec, const std::string& type) {
  if (type == "NodePort" || type == "LoadBalancer") return true;
  const bj::value* ips = spec.if_contains("externalIPs");
  return type == "ClusterIP" && ips && ips->is_array() && !ips->as_array().empty();
}

// The family fields a single-stack IPv4 kube-apiserver stores for every Service that has a cluster
// IP, and for headless ones; the addresses themselves are allocated by services/cluster_ips.
void default_ip_families(bj::object& spec, const std::string& type) {
  if (type == "ExternalName") return;
  fill(spec, "ipFamilyPolicy", "SingleStack");
  fill(spec, "ipFamilies", bj::array{"IPv4"});
}

void default_service(bj::object& service) {
  bj::value& sv = service["spec"];
  if (!sv.is_object()) sv = bj::object{};
  bj::object& spec = sv.as_object();
  default_session_affinity(spec);
  fill(spec, "type", "ClusterIP");
  std::string type = string_at(spec, "type");
  default_ports(spec);
  if (externally_accessible(spec, type)) fill(spec, "externalTrafficPolicy", "Cluster");
  if (type == "ClusterIP" || type == "NodePort" || type == "LoadBalancer") {
    fill(spec, "internalTrafficPolicy", "Cluster");
  }
  if (type == "LoadBalancer") fill(spec, "allocateLoadBalancerNodePorts", true);
  default_ip_families(spec, type);
}

}  // namespace

void default_service_and_secret(AdmissionRequest& request) {
  const ResourceInfo& r = request.resource;
  if (!request.subresource.empty() || !r.group.empty()) return;
  if (r.resource == "services") {
    default_service(request.object);
  } else if (r.resource == "secrets") {
    fill(request.object, "type", "Opaque");
  }
}

}  // namespace tailor::embedded
