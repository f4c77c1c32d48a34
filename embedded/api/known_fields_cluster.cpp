// core/v1 Service and Node, every field (k8s.io/api core/v1 types.go). A Node's status is what
// the node agent writes (capacity, allocatable, addresses, nodeInfo, conditions): all of it must
// be known, or each heartbeat would lose it.
#include "embedded/api/known_fields_parts.h"

namespace tailor::embedded::known {
namespace {

const KnownFields& service_port() {
  static const KnownFields f =
      fields({"name", "protocol", "appProtocol", "port", "targetPort", "nodePort"});
  return f;
}

const KnownFields& session_affinity_config() {
  static const KnownFields client_ip = fields({"timeoutSeconds"});
  static const KnownFields f = fields({}, {{"clientIP", &client_ip}});
  return f;
}

const KnownFields& load_balancer_status() {
  static const KnownFields port = fields({"port", "protocol", "error"});
  static const KnownFields ingress = fields({"ip", "hostname", "ipMode"}, {{"ports", &port}});
  static const KnownFields f = fields({}, {{"ingress", &ingress}});
  return f;
}

const KnownFields& taint() {
  static const KnownFields f = fields({"key", "value", "effect", "timeAdded"});
  return f;
}

const KnownFields& node_condition() {
  static const KnownFields f =
      fields({"type", "status", "lastHeartbeatTime", "lastTransitionTime", "reason", "message"});
  return f;
}

const KnownFields& node_address() {
  static const KnownFields f = fields({"type", "address"});
  return f;
}

const KnownFields& node_system_info() {
  static const KnownFields swap = fields({"capacity"});
  static const KnownFields f = fields(
      {"machineID", "systemUUID", "bootID", "kernelVersion", "osImage", "containerRuntimeVersion",
       "kubeletVersion", "kubeProxyVersion", "operatingSystem", "architecture"},
      {{"swap", &swap}});
  return f;
}

const KnownFields& container_image() {
  static const KnownFields f = fields({"names", "sizeBytes"});
  return f;
}

const KnownFields& attached_volume() {
  static const KnownFields f = fields({"name", "devicePath"});
  return f;
}

}  // namespace

const KnownFields& service_spec() {
  static const KnownFields f =
      fields({"selector", "clusterIP", "clusterIPs", "type", "externalIPs", "sessionAffinity",
              "loadBalancerIP", "loadBalancerSourceRanges", "externalName", "externalTrafficPolicy",
              "healthCheckNodePort", "publishNotReadyAddresses", "ipFamilies", "ipFamilyPolicy",
              "allocateLoadBalancerNodePorts", "loadBalancerClass", "internalTrafficPolicy",
              "trafficDistribution"},
             {{"ports", &service_port()}, {"sessionAffinityConfig", &session_affinity_config()}});
  return f;
}

const KnownFields& service_status() {
  static const KnownFields f =
      fields({}, {{"loadBalancer", &load_balancer_status()}, {"conditions", &condition()}});
  return f;
}

// configSource: deprecated dynamic kubelet config, left open.
const KnownFields& node_spec() {
  static const KnownFields f =
      fields({"podCIDR", "podCIDRs", "providerID", "unschedulable", "configSource", "externalID"},
             {{"taints", &taint()}});
  return f;
}

// daemonEndpoints (its kubeletEndpoint's field is "Port"), config, runtimeHandlers and features
// are left open.
const KnownFields& node_status() {
  static const KnownFields f =
      fields({"capacity", "allocatable", "phase", "daemonEndpoints", "volumesInUse", "config",
              "runtimeHandlers", "features", "declaredFeatures"},
             {{"conditions", &node_condition()},
              {"addresses", &node_address()},
              {"nodeInfo", &node_system_info()},
              {"images", &container_image()},
              {"volumesAttached", &attached_volume()}});
  return f;
}

}  // namespace tailor::embedded::known
