// A tailor-controller instance's side of the integration tests: the usage the node agents would
// stream for web-1, and the MutatingWebhookConfiguration that sends pod creations to its webhook.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>

#include "controller/app/controller.h"
#include "controller/usage/usage_feed.h"
#include "controller/webhook/webhook_server.h"
#include "kube/http/base64.h"
#include "tests/controller/integration/policy_cluster.h"

namespace tailor::controller::testing {

// Enough of VPA's CRD for its objects to be stored and listed.
inline constexpr const char* kVpaCrd = R"(apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: verticalpodautoscalers.autoscaling.k8s.io}
spec:
  group: autoscaling.k8s.io
  scope: Namespaced
  names: {kind: VerticalPodAutoscaler, listKind: VerticalPodAutoscalerList,
          plural: verticalpodautoscalers, singular: verticalpodautoscaler}
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
)";

// What default/web-1's container app uses, every minute.
struct AppUsage {
  double cpu_cores_mean;
  double cpu_cores_max;
  double memory_bytes;
};

// A whole core (1.2 at the peak of each minute) and 400 MiB: more than the 100m/100Mi requested.
inline constexpr AppUsage kBusyApp{1.0, 1.2, 400.0 * 1024 * 1024};

// Two hours of minute windows of `usage`, ending at the last 5-minute boundary. kBusyApp's are
// ten times the pod's 100m CPU request, so each ends its sample period early
// (recommender/sample_period.h, kEarlyCloseRatio): the models see 121 periods, one a window.
inline constexpr int kFedPeriods = 121;
inline void feed_usage(Controller& c, const AppUsage& usage) {
  const std::int64_t now = usage::unix_now_ms() / 300'000 * 300'000;
  for (std::int64_t end = now - 2 * 3600 * 1000; end <= now; end += 60'000) {
    c.on_usage({.node = "node-1",
                .ns = "default",
                .pod = "web-1",
                .pod_uid = "",
                .container = "app",
                .start_unix_ms = end - 60'000,
                .end_unix_ms = end,
                .samples = 12,
                .cpu_cores_mean = usage.cpu_cores_mean,
                .cpu_cores_max = usage.cpu_cores_max,
                .memory_working_set_max_bytes = usage.memory_bytes,
                .memory_peak_bytes = usage.memory_bytes});
  }
}

// The MutatingWebhookConfiguration that sends pod creations to `hook`.
inline std::string webhook_configuration_yaml(const webhook::WebhookServer& hook) {
  return R"(apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: tailor}
webhooks:
- name: pods.tailor.dev
  admissionReviewVersions: [v1]
  sideEffects: None
  failurePolicy: Ignore
  timeoutSeconds: 2
  rules: [{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [pods]}]
  clientConfig:
    url: )" +
         hook.url() +
         R"(
    caBundle: )" +
         kube::base64_encode(hook.ca_pem()) + "\n";
}

// A policy cluster test that runs tailor-controller's webhook for `c`, registered with the
// API server.
template <class Cluster>
class WebhookClusterTest : public PolicyClusterTest<Cluster> {
 protected:
  // The webhook of `c`, started and registered (null, with a failure, when kubectl refuses).
  std::unique_ptr<webhook::WebhookServer> serve_webhook(Controller& c) {
    auto hook = std::make_unique<webhook::WebhookServer>(
        webhook::WebhookOptions{.address = "127.0.0.1", .dns_names = {"localhost"}},
        [&c](const webhook::AdmissionRequest& r) { return c.admit(r); });
    hook->start();
    this->write("hook.yaml", webhook_configuration_yaml(*hook));
    auto registered = this->kubectl("apply -f hook.yaml");
    if (registered.exit_code != 0) {
      ADD_FAILURE() << "kubectl apply -f hook.yaml: " << registered.err;
      return nullptr;
    }
    return hook;
  }
};

}  // namespace tailor::controller::testing
