#include "embedded/controllers/handlers.h"
#include "embedded/controllers/loops.h"
#include "embedded/server/features.h"

namespace tailor::embedded {

void add_eviction_and_binding(ApiExtensions& extensions, ObjectStore& store) {
  extensions.handlers["pods/eviction"] = eviction_handler(store);
  extensions.handlers["pods/binding"] = binding_handler(store);
  for (const char* workload : {"deployments.apps", "replicasets.apps", "statefulsets.apps"}) {
    extensions.handlers[std::string(workload) + "/scale"] = scale_handler(store);
  }
  extensions.mutating.push_back(default_workload);
  extensions.mutating.push_back(default_service_and_secret);
  extensions.validating.push_back(validate_workload_selector);
  extensions.validating.push_back(validate_workload_template);
  extensions.validating.push_back(validate_cronjob_schedule);
  extensions.mutating.push_back(default_horizontal_pod_autoscaler);
  extensions.validating.push_back(validate_horizontal_pod_autoscaler);
  extensions.mutating.push_back(default_network_policy);
  extensions.validating.push_back(validate_network_policy);
}

std::vector<std::unique_ptr<ControlLoop>> make_control_loops(ObjectStore& store,
                                                             const ApiExtensions& extensions,
                                                             const std::string& ca_pem,
                                                             const ApiServerEndpoint& api) {
  auto shared = std::make_shared<const ApiExtensions>(extensions);
  std::vector<std::unique_ptr<ControlLoop>> loops;
  loops.push_back(make_scheduler(store));
  loops.push_back(make_simulated_kubelet(store));
  loops.push_back(make_replicaset_controller(store, shared));
  loops.push_back(make_deployment_controller(store));
  loops.push_back(make_statefulset_controller(store, shared));
  loops.push_back(make_daemonset_controller(store, shared));
  loops.push_back(make_job_controller(store, shared));
  loops.push_back(make_cronjob_controller(store, shared));
  loops.push_back(make_garbage_collector(store));
  loops.push_back(make_disruption_controller(store));
  loops.push_back(make_quota_controller(store));
  loops.push_back(make_clusterrole_aggregation(store));
  loops.push_back(make_service_account_controller(store));
  loops.push_back(make_endpointslice_controller(store));
  if (!ca_pem.empty()) loops.push_back(make_root_ca_publisher(store, ca_pem));
  if (!api.address.empty()) loops.push_back(make_kubernetes_service_controller(store, api));
  return loops;
}

}  // namespace tailor::embedded
