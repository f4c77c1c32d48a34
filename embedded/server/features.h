// The features Cluster plugs into the API handler and runs beside it. Each lives in its own
// folder of embedded/ and is added here by one function.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "embedded/api/extensions.h"
#include "embedded/auth/authenticator.h"
#include "embedded/controllers/control_loop.h"
#include "embedded/storage/object_store.h"

namespace tailor::embedded {

class ClusterIpAllocator;

// resize/: pods/resize (GET, PUT, PATCH) with KEP-1287's validation.
void add_pod_resize(ApiExtensions& extensions, ObjectStore& store);
// logs/: pods/log from the node agents' container log files below `log_dir` ("" : refused).
void add_pod_logs(ApiExtensions& extensions, std::string log_dir);
// quota/: ResourceQuota and LimitRange admission on pod create and resize, quota status.
void add_quota_and_limit_ranges(ApiExtensions& extensions, ObjectStore& store);
// quota/: status.used recounted when pods are deleted or end.
std::unique_ptr<ControlLoop> make_quota_controller(ObjectStore& store);
// protobuf/: Kubernetes protobuf request bodies.
void add_protobuf_bodies(ApiExtensions& extensions);
// auth/: selfsubjectaccessreviews and subjectaccessreviews, answered by extensions.authorize;
// selfsubjectreviews (who the requester is).
void add_access_reviews(ApiExtensions& extensions);
// auth/: who sends each request (client certificates, the administrator's token, ServiceAccount
// tokens), RBAC over the store, and serviceaccounts/{name}/token.
void add_authentication_and_rbac(ApiExtensions& extensions, ObjectStore& store,
                                 AuthenticatorOptions options);
// auth/audit_log: every authorization decision appended to the file at `path` (throws
// std::runtime_error when it cannot be opened).
void add_audit_log(ApiExtensions& extensions, const std::string& path);
// controllers/: pods/eviction (PodDisruptionBudgets), pods/binding, the scale subresource of
// workloads, and the workloads' defaulting and selector validation.
void add_eviction_and_binding(ApiExtensions& extensions, ObjectStore& store);
// crd/: CustomResourceDefinitions and their custom resources, served dynamically.
void add_custom_resources(ApiExtensions& extensions, ObjectStore& store);
// webhooks/: MutatingWebhookConfigurations called on create.
void add_mutating_webhooks(ApiExtensions& extensions, ObjectStore& store);

// services/: ClusterIP allocation from `service_cidr` (kube-apiserver's
// --service-cluster-ip-range) on Service create and update; throws std::invalid_argument for a
// range it cannot serve. Added after every other validating plugin.
std::shared_ptr<ClusterIpAllocator> add_cluster_ips(ApiExtensions& extensions, ObjectStore& store,
                                                    const std::string& service_cidr);

// metrics/: metrics.k8s.io (NodeMetrics, PodMetrics) from the kubelet endpoints the Nodes name,
// scraped every `resolution` by the loop this returns, as metrics-server does.
std::unique_ptr<ControlLoop> add_metrics_api(ApiExtensions& extensions, ObjectStore& store,
                                             std::chrono::milliseconds resolution);

// Where pods reach the API server: the `kubernetes` Service's cluster IP, and the address and
// port its Endpoints and EndpointSlice name.
struct ApiServerEndpoint {
  std::string cluster_ip;
  std::string address;
  std::uint16_t port = 0;
};

// controllers/: scheduler, simulated kubelet, workload controllers, garbage collector,
// disruption controller, ServiceAccount controller ("default" in every namespace), and with
// `ca_pem` the root CA publisher (kube-root-ca.crt in every namespace), with `api` the
// `kubernetes` Service and its endpoints (none when api.address is empty). Pods the controllers
// create pass `extensions`' admission plugins, as they would through the API.
std::vector<std::unique_ptr<ControlLoop>> make_control_loops(ObjectStore& store,
                                                             const ApiExtensions& extensions,
                                                             const std::string& ca_pem,
                                                             const ApiServerEndpoint& api = {});

}  // namespace tailor::embedded
