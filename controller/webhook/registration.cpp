#include "controller/webhook/registration.h"

#include <boost/json.hpp>

#include "kube/client/rest_client.h"
#include "kube/http/base64.h"

namespace tailor::controller::webhook {
namespace json = boost::json;
namespace {

const kube::ResourceType kMutatingWebhookConfigurations{"admissionregistration.k8s.io", "v1",
                                                        "mutatingwebhookconfigurations", false};

json::object configuration(const WebhookRegistration& r) {
  json::object rule{{"operations", json::array{"CREATE"}},
                    {"apiGroups", json::array{""}},
                    {"apiVersions", json::array{"v1"}},
                    {"resources", json::array{"pods"}},
                    {"scope", "Namespaced"}};
  json::object selector{
      {"matchExpressions", json::array{json::object{{"key", "kubernetes.io/metadata.name"},
                                                    {"operator", "NotIn"},
                                                    {"values", json::array{"kube-system"}}}}}};
  json::object hook{
      {"name", "pods.autoscaling.tailor.dev"},
      {"admissionReviewVersions", json::array{"v1"}},
      {"sideEffects", "None"},
      {"failurePolicy", "Ignore"},
      {"reinvocationPolicy", "Never"},
      {"timeoutSeconds", r.timeout_seconds},
      {"namespaceSelector", std::move(selector)},
      {"rules", json::array{std::move(rule)}},
      {"clientConfig", json::object{{"url", r.url}, {"caBundle", kube::base64_encode(r.ca_pem)}}}};
  return json::object{{"apiVersion", "admissionregistration.k8s.io/v1"},
                      {"kind", "MutatingWebhookConfiguration"},
                      {"metadata", json::object{{"name", r.name}}},
                      {"webhooks", json::array{std::move(hook)}}};
}

}  // namespace

std::string mutating_webhook_configuration(const WebhookRegistration& r) {
  return json::serialize(configuration(r));
}

void register_webhook(kube::RestClient& client, const WebhookRegistration& r) {
  if (r.url.empty() || r.ca_pem.empty()) {
    throw std::invalid_argument("webhook registration needs the server's URL and CA");
  }
  const kube::ObjectRef ref{kMutatingWebhookConfigurations, "", r.name, ""};
  json::object desired = configuration(r);
  try {
    const json::value existing = json::parse(client.get(ref));
    desired["metadata"].as_object()["resourceVersion"] =
        existing.at("metadata").at("resourceVersion");
    client.update(ref, json::serialize(desired));
  } catch (const kube::ApiError& e) {
    if (!e.is_not_found()) throw;
    client.create({kMutatingWebhookConfigurations, "", "", ""}, json::serialize(desired));
  }
}

}  // namespace tailor::controller::webhook
