// metrics-server's scrape loop inside tailor-cluster: every resolution, each Node that names a
// kubelet endpoint (status.daemonEndpoints.kubeletEndpoint.Port on its InternalIP) is asked for
// /metrics/resource — on `tailor cluster up` the node agent serves it — and the points go to the
// MetricsStorage behind metrics.k8s.io. A node that does not answer reports nothing until it does.
#pragma once

#include <chrono>
#include <memory>

#include "embedded/controllers/control_loop.h"
#include "embedded/metrics/metrics_storage.h"
#include "embedded/storage/object_store.h"

namespace tailor::embedded {

// The kubelet URL of a stored Node ("http://10.0.0.1:10250"); "" when it names none.
std::string kubelet_url(const boost::json::object& node);

std::unique_ptr<ControlLoop> make_metrics_scraper(ObjectStore& store,
                                                  std::shared_ptr<MetricsStorage> storage,
                                                  std::chrono::milliseconds resolution);

}  // namespace tailor::embedded
