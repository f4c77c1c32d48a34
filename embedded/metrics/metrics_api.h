// metrics.k8s.io/v1beta1 as metrics-server serves it: NodeMetrics (nodes) and PodMetrics (pods,
// namespaced), get and list (label and field selectors on the nodes and pods themselves; only
// Running pods, in namespace/name order), from the MetricsStorage the scraper fills. The usage:
// CPU in nanocores ("123456n", canonical), memory as a binary quantity ("2048Ki"), timestamp and
// window of the points. A pod or node that is not stored is NotFound for pods or nodes; one without
// metrics yet is NotFound for podmetrics.metrics.k8s.io / nodemetrics.metrics.k8s.io, named
// "ns/name" for a pod — metrics-server's answers.
#pragma once

#include <boost/json/fwd.hpp>
#include <memory>
#include <string>

#include "embedded/api/extensions.h"
#include "embedded/metrics/metrics_storage.h"
#include "kube/model/time.h"

namespace tailor::embedded {

// One PodMetrics object for a stored pod and its usage (`now`: its creationTimestamp, as
// metrics-server stamps the time of the request).
boost::json::object pod_metrics_json(const boost::json::object& pod, const PodUsage& usage,
                                     kube::TimePoint now);
boost::json::object node_metrics_json(const boost::json::object& node, const ResourceUsage& usage,
                                      kube::TimePoint now);

// Registers the handlers of the two virtual resources.
void add_metrics_api_handlers(ApiExtensions& extensions,
                              std::shared_ptr<const MetricsStorage> storage);

}  // namespace tailor::embedded
