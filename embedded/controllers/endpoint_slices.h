// Private to controllers/ (and webhooks/service_route, for find_port): what upstream's
// EndpointSlice controller and endpoints controller write for a Service with a selector, computed
// from its namespace's pods. Pure.
//
// A pod is an endpoint when the selector matches it, it has an IP and is not terminal
// (ShouldPodBeInEndpoints; terminating pods stay in slices, as includeTerminating is true there);
// its conditions are podToEndpoint's: serving = Ready condition True, terminating = deletion
// requested, ready = serving and not terminating (or publishNotReadyAddresses). Each service
// port's targetPort is resolved per pod (FindPort: a number as is, a name through the pod's
// container ports of that name and protocol; a port that does not resolve is left out for that
// pod), so pods whose ports resolve differently land in different slices; at most 100 endpoints a
// slice. Slices are named <service>-<hash of the ports>[-<n>] (deterministic where upstream's
// are generated), labelled kubernetes.io/service-name, endpointslice.kubernetes.io/managed-by
// endpointslice-controller.k8s.io (and service.kubernetes.io/headless for a headless Service),
// carry the Service's own labels and are owned by it (controller: true). Endpoints (the legacy
// object, named after the Service) list ready endpoints as addresses and the others, not
// terminating unless publishNotReadyAddresses, as notReadyAddresses, one subset per port set.
#pragma once

#include <boost/json.hpp>
#include <cstdint>
#include <vector>

namespace tailor::embedded {

inline constexpr const char* kEndpointSliceManagedBy = "endpointslice-controller.k8s.io";
inline constexpr int kMaxEndpointsPerSlice = 100;  // --max-endpoints-per-slice's default

// FindPort: the port number a service port's targetPort names in this pod (a number as is, a
// name through the pod's container ports of that name and protocol, absent: the service port's
// own); 0 when none.
std::int64_t find_port(const boost::json::object& pod, const boost::json::object& service_port);

// The slices the Service should have (each a whole object: apiVersion, kind, metadata, addressType,
// endpoints, ports), sorted by name; `pods`: those of its namespace.
std::vector<boost::json::object> desired_endpoint_slices(
    const boost::json::object& service, const std::vector<const boost::json::object*>& pods);

// The Endpoints object the Service should have.
boost::json::object desired_endpoints(const boost::json::object& service,
                                      const std::vector<const boost::json::object*>& pods);

}  // namespace tailor::embedded
