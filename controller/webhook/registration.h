// Self-registration of the admission webhook, for clusters where no chart registers it (the local
// `tailor cluster up` environment): the MutatingWebhookConfiguration points at this process's own
// URL and CA, so a controller that restarts on a new port or with a new CA re-points it.
#pragma once

#include <string>

namespace tailor::kube {
class RestClient;
}

namespace tailor::controller::webhook {

struct WebhookRegistration {
  std::string name = "tailor-controller";
  std::string url;     // https://host:port/path of the webhook server
  std::string ca_pem;  // the CA that signed its serving certificate
  int timeout_seconds = 3;
};

// The MutatingWebhookConfiguration as JSON: pods CREATE, failurePolicy Ignore (a webhook that is
// down must never block pod creation), sideEffects None, namespaces kube-system excluded.
std::string mutating_webhook_configuration(const WebhookRegistration& r);

// Creates the configuration, or replaces the existing one's webhooks (kept resourceVersion, so a
// concurrent writer makes this throw ApiError 409 instead of being overwritten blindly).
void register_webhook(kube::RestClient& client, const WebhookRegistration& r);

}  // namespace tailor::controller::webhook
