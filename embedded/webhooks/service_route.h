// Where a webhook's service reference is called, as kube-apiserver routes it: the Service by
// namespace/name, its port by the reference's port number, then a ready endpoint of the pods its
// selector matches, at the port's targetPort (a number or a named container port). A pure decision
// over the Service and the namespace's pods; the caller reads them from the store.
#pragma once

#include <boost/json/value.hpp>
#include <string>
#include <vector>

namespace tailor::embedded::webhooks {

struct ServiceReference {
  std::string ns, name;
  int port = 443;
  std::string path = "/";
};

// The address dialled (host, port) and the pod behind it; error is set instead when there is
// none, in kube-apiserver's words ("no endpoints available for service \"hook\"").
struct ServiceRoute {
  std::string host;
  int port = 0;
  std::string pod;
  std::string error;
};

// A Service's spec.selector as the metav1.LabelSelector it amounts to ({"matchLabels": ...}), for
// selector_matches; null when it has none (its Endpoints are written by hand, which tailor-cluster
// does not serve: no endpoints).
boost::json::value pod_selector(const boost::json::object& service);

// service: the Service object, nullptr when there is none. pods: the pods of the reference's
// namespace, in the order to prefer them.
ServiceRoute route_to_service(const ServiceReference& reference, const boost::json::object* service,
                              const std::vector<const boost::json::object*>& pods);

}  // namespace tailor::embedded::webhooks
