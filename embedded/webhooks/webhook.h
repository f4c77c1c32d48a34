// MutatingWebhookConfigurations (admissionregistration.k8s.io/v1) as plain values: v1 defaulting,
// validation with kube-apiserver's messages, and which writes a webhook is called for (rules,
// scope, namespaceSelector, objectSelector).
#pragma once

#include <boost/json/fwd.hpp>
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "embedded/storage/status_error.h"
#include "embedded/webhooks/service_route.h"

namespace tailor::embedded::webhooks {

struct Rule {
  std::vector<std::string> operations;  // CREATE, UPDATE, DELETE, CONNECT, *
  std::vector<std::string> api_groups;
  std::vector<std::string> api_versions;
  std::vector<std::string> resources;  // "pods", "pods/status", "*", "*/*", "pods/*"
  std::string scope = "*";             // Cluster, Namespaced, *
};

struct Webhook {
  std::string name;
  // https://host:port/path: clientConfig.url, or for a service reference the URL kube-apiserver
  // names in its errors, https://<name>.<namespace>.svc:<port>/<path>, whose host is dialled at
  // an endpoint of the Service (route_to_service) and checked against the certificate.
  std::string url;
  std::optional<ServiceReference> service;
  std::string server_name;  // "" : the URL's host
  std::string ca_bundle;    // PEM; "" : the system's trust store
  std::vector<Rule> rules;
  bool fail_closed = true;         // failurePolicy Fail
  std::string namespace_selector;  // label-selector text; "" selects everything
  std::string object_selector;
  std::chrono::seconds timeout{10};
};

// What a write looks like to the matcher.
struct Write {
  std::string operation;  // CREATE, UPDATE
  std::string group, version, resource, subresource;
  bool namespaced = true;
  bool is_namespace = false;  // a Namespace object: namespaceSelector sees its own labels
};

void default_configuration(boost::json::object& configuration);
std::vector<FieldCause> validation_errors(const boost::json::object& configuration);
// The webhooks of a valid (defaulted) configuration.
std::vector<Webhook> parse_configuration(const boost::json::object& configuration);

bool rules_match(const std::vector<Rule>& rules, const Write& write);
// metav1.LabelSelector JSON as label-selector text ("a=b,c in (d,e),!f").
std::string selector_text(const boost::json::value& label_selector);

}  // namespace tailor::embedded::webhooks
