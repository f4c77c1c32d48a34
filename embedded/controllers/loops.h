// Private to controllers/: the control loops make_control_loops starts, and the writes shared by
// loops and subresource handlers.
#pragma once

#include <memory>
#include <string>

#include "embedded/api/extensions.h"
#include "embedded/controllers/control_loop.h"
#include "embedded/server/features.h"
#include "embedded/storage/object_store.h"

namespace tailor::embedded {

using SharedExtensions = std::shared_ptr<const ApiExtensions>;

std::unique_ptr<ControlLoop> make_scheduler(ObjectStore& store);
std::unique_ptr<ControlLoop> make_simulated_kubelet(ObjectStore& store);
std::unique_ptr<ControlLoop> make_deployment_controller(ObjectStore& store);
std::unique_ptr<ControlLoop> make_replicaset_controller(ObjectStore& store, SharedExtensions ext);
std::unique_ptr<ControlLoop> make_statefulset_controller(ObjectStore& store, SharedExtensions ext);
std::unique_ptr<ControlLoop> make_daemonset_controller(ObjectStore& store, SharedExtensions ext);
std::unique_ptr<ControlLoop> make_job_controller(ObjectStore& store, SharedExtensions ext);
std::unique_ptr<ControlLoop> make_cronjob_controller(ObjectStore& store, SharedExtensions ext);
std::unique_ptr<ControlLoop> make_garbage_collector(ObjectStore& store);
std::unique_ptr<ControlLoop> make_disruption_controller(ObjectStore& store);
std::unique_ptr<ControlLoop> make_clusterrole_aggregation(ObjectStore& store);
// The ServiceAccount "default" in every namespace.
std::unique_ptr<ControlLoop> make_service_account_controller(ObjectStore& store);
// kube-root-ca.crt (data ca.crt: `ca_pem`) in every namespace.
std::unique_ptr<ControlLoop> make_root_ca_publisher(ObjectStore& store, std::string ca_pem);
// EndpointSlices and Endpoints of Services with a selector (endpoint_slices.h).
std::unique_ptr<ControlLoop> make_endpointslice_controller(ObjectStore& store);
// default/kubernetes (Service, Endpoints, EndpointSlice) pointing at the API server.
std::unique_ptr<ControlLoop> make_kubernetes_service_controller(ObjectStore& store,
                                                                ApiServerEndpoint api);

// pods/binding: sets spec.nodeName and PodScheduled=True; 409 Conflict when already bound or
// when uid (if given) names another pod.
ObjectPtr bind_pod(ObjectStore& store, const std::string& ns, const std::string& name,
                   const std::string& node, const std::string& uid = "");

}  // namespace tailor::embedded
