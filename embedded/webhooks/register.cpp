// Mutating admission webhooks: on create and update the matching webhooks of every
// MutatingWebhookConfiguration (in name order) get an AdmissionReview over HTTPS; their JSON
// patches are applied, their denials returned, and failures handled by failurePolicy. Calls run
// outside the store's lock (admission always does).
#include <cctype>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>

#include "embedded/api/patch.h"
#include "embedded/api/resources.h"
#include "embedded/api/selectors.h"
#include "embedded/controllers/objects.h"
#include "embedded/server/features.h"
#include "embedded/storage/object_meta.h"
#include "embedded/webhooks/review.h"
#include "embedded/webhooks/webhook.h"
#include "kube/http/client.h"

namespace tailor::embedded {
namespace {

using webhooks::Webhook;
using webhooks::Write;

bool is_configuration(const ResourceInfo& r) {
  return r.group == "admissionregistration.k8s.io" && r.resource == "mutatingwebhookconfigurations";
}

const ResourceInfo& configurations() {
  static const ResourceInfo* r =
      find_resource("admissionregistration.k8s.io", "v1", "mutatingwebhookconfigurations");
  return *r;
}

const ResourceInfo& namespaces() {
  static const ResourceInfo* r = find_resource("", "v1", "namespaces");
  return *r;
}

const ResourceInfo& services() {
  static const ResourceInfo* r = find_resource("", "v1", "services");
  return *r;
}

const ResourceInfo& pods() {
  static const ResourceInfo* r = find_resource("", "v1", "pods");
  return *r;
}

Write write_of(const AdmissionRequest& request) {
  const ResourceInfo& r = request.resource;
  return {request.operation == AdmissionOperation::Create ? "CREATE" : "UPDATE",
          r.group,
          r.version,
          r.resource,
          request.subresource,
          r.namespaced,
          r.group.empty() && r.resource == "namespaces"};
}

// A transport failure in the words of Go's HTTP client where they are known: "context deadline
// exceeded", "dial tcp <host:port>: connect: connection refused"; else the client's own reason.
std::string transport_error(const kube::http::ClientError& e, const std::string& base) {
  if (e.kind() == kube::http::ClientError::Kind::Timeout) return "context deadline exceeded";
  std::string why = e.what();
  if (std::size_t colon = why.find(": ", why.find("://")); colon != std::string::npos)
    why = why.substr(colon + 2);  // drop the client's "POST <url>: " prefix
  if (e.kind() == kube::http::ClientError::Kind::Connect) {
    for (char& c : why) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return "dial tcp " + base.substr(base.find("://") + 3) + ": " + why;
  }
  if (e.kind() == kube::http::ClientError::Kind::Tls) return "tls: " + why;
  return why;
}

// The URL split into what http::Client takes: "https://host:port" and "/path?query".
std::pair<std::string, std::string> split_url(const std::string& url) {
  std::size_t scheme = url.find("://");
  std::size_t slash = url.find('/', scheme == std::string::npos ? 0 : scheme + 3);
  if (slash == std::string::npos) return {url, "/"};
  return {url.substr(0, slash), url.substr(slash)};
}

void admit_configuration(AdmissionRequest& request) {
  webhooks::default_configuration(request.object);
  std::vector<FieldCause> causes = webhooks::validation_errors(request.object);
  if (!causes.empty()) {
    throw invalid("admissionregistration.k8s.io", "MutatingWebhookConfiguration",
                  meta_string(request.object, "name"), std::move(causes));
  }
}

class WebhookCaller {
 public:
  explicit WebhookCaller(ObjectStore& store) : store_(store) {}

  void admit(AdmissionRequest& request) {
    if (is_configuration(request.resource)) return admit_configuration(request);
    Write write = write_of(request);
    for (const ObjectPtr& configuration : store_.list_objects(configurations(), "")) {
      for (const Webhook& hook : webhooks::parse_configuration(*configuration)) {
        if (webhooks::rules_match(hook.rules, write) && selected(hook, request, write)) {
          call(hook, request, write);
        }
      }
    }
  }

 private:
  bool selected(const Webhook& hook, const AdmissionRequest& request, const Write& write) const {
    LabelSelector objects = LabelSelector::parse(hook.object_selector);
    bool object_ok = objects.matches(request.object) ||
                     (request.old_object && objects.matches(*request.old_object));
    if (!object_ok) return false;
    if (hook.namespace_selector.empty()) return true;
    LabelSelector namespaces_wanted = LabelSelector::parse(hook.namespace_selector);
    if (write.is_namespace) return namespaces_wanted.matches(request.object);
    if (!write.namespaced) return true;
    try {
      return namespaces_wanted.matches(*store_.get(namespaces(), "", request.ns));
    } catch (const StatusError&) {
      return namespaces_wanted.matches(bj::object{});
    }
  }

  void call(const Webhook& hook, AdmissionRequest& request, const Write& write) {
    try {
      apply(hook, request, exchange(hook, request, write));
    } catch (const webhooks::CallFailure& failure) {
      if (hook.fail_closed) {
        throw internal_error("failed calling webhook \"" + hook.name + "\": " + failure.what());
      }
    }
  }

  webhooks::Verdict exchange(const Webhook& hook, const AdmissionRequest& request,
                             const Write& write) {
    std::string uid = new_uid();
    webhooks::ReviewRequest review{
        uid,        write,           request.resource.kind, request.name,
        request.ns, &request.object, request.old_object,    request.dry_run};
    auto [base, path] = split_url(hook.url);
    std::string timeout = std::to_string(hook.timeout.count()) + "s";
    std::string target =
        path + (path.find('?') == std::string::npos ? "?" : "&") + "timeout=" + timeout;
    kube::http::ClientResponse response;
    std::string dialled = base;
    try {
      if (hook.service) dialled = endpoint_of(*hook.service);
      response = client(hook, dialled)
                     ->send({"POST",
                             target,
                             {{"Content-Type", "application/json"}, {"Accept", "application/json"}},
                             webhooks::review_body(review),
                             hook.timeout});
    } catch (const kube::http::ClientError& e) {
      throw webhooks::CallFailure("failed to call webhook: Post \"" + base + target +
                                  "\": " + transport_error(e, dialled));
    } catch (const std::invalid_argument& e) {
      throw webhooks::CallFailure(std::string("failed to call webhook: ") + e.what());
    } catch (const Unroutable& e) {
      // kube-apiserver's dialer resolves the service: its error ends the Post.
      throw webhooks::CallFailure("failed to call webhook: Post \"" + base + target +
                                  "\": " + e.what());
    }
    if (response.status != 200) {
      throw webhooks::CallFailure(
          "failed to call webhook: the server responded with the status "
          "code " +
          std::to_string(response.status) + " but did not return more information");
    }
    return webhooks::read_review_response(hook.name, uid, response.body);
  }

  struct Unroutable : std::runtime_error {
    using std::runtime_error::runtime_error;
  };

  // "https://<ip>:<port>" of a ready endpoint of the referenced Service, read from the store.
  std::string endpoint_of(const webhooks::ServiceReference& reference) const {
    ObjectPtr service;
    try {
      service = store_.get(services(), reference.ns, reference.name);
    } catch (const StatusError&) {
      // not found: route_to_service words it
    }
    // Only the pods the Service selects are parsed, not the namespace's every pod.
    std::vector<bj::object> held;
    if (service) {
      const ObjectFilter selected = selected_by(webhooks::pod_selector(*service));
      if (selected) {
        for (const StoredPtr& pod : store_.list(pods(), reference.ns, selected).items)
          held.push_back(pod->object());
      }
    }
    std::vector<const bj::object*> candidates;
    for (const bj::object& pod : held) candidates.push_back(&pod);
    webhooks::ServiceRoute route = webhooks::route_to_service(reference, service.get(), candidates);
    if (!route.error.empty()) throw Unroutable(route.error);
    return "https://" + route.host + ":" + std::to_string(route.port);
  }

  // The stored pods selector_matches would take; null when it takes none (no selector, or one
  // that does not parse).
  static ObjectFilter selected_by(const bj::value& selector) {
    std::optional<LabelSelector> wanted = parse_selector(&selector);
    if (!wanted) return nullptr;
    return [wanted = std::move(*wanted)](const StoredObject& pod) { return wanted.matches(pod); };
  }

  static void apply(const Webhook& hook, AdmissionRequest& request,
                    const webhooks::Verdict& verdict) {
    if (!verdict.allowed) throw verdict.denial;
    if (!verdict.patch) return;
    bj::value patched;
    try {
      patched = json_patch(request.object, *verdict.patch);
    } catch (const StatusError& e) {
      throw webhooks::CallFailure("received invalid webhook response: the patch of \"" + hook.name +
                                  "\" does not apply: " + e.message());
    }
    if (!patched.is_object()) {
      throw webhooks::CallFailure(
          "received invalid webhook response: the patch does not leave "
          "an object");
    }
    request.object = std::move(patched.as_object());
  }

  std::shared_ptr<kube::http::Client> client(const Webhook& hook, const std::string& base) {
    std::string key = base + "\n" + hook.server_name + "\n" + hook.ca_bundle;
    std::lock_guard lock(mu_);
    auto it = clients_.find(key);
    if (it != clients_.end()) return it->second;
    if (clients_.size() >= 64) clients_.clear();
    kube::http::ClientOptions options;
    options.base_url = base;
    options.tls.ca_pem = hook.ca_bundle;
    options.tls.server_name = hook.server_name;
    auto c = std::make_shared<kube::http::Client>(options);
    clients_.emplace(key, c);
    return c;
  }

  ObjectStore& store_;
  std::mutex mu_;
  std::map<std::string, std::shared_ptr<kube::http::Client>> clients_;
};

}  // namespace

void add_mutating_webhooks(ApiExtensions& extensions, ObjectStore& store) {
  auto caller = std::make_shared<WebhookCaller>(store);
  extensions.mutating.push_back([caller](AdmissionRequest& request) { caller->admit(request); });
}

}  // namespace tailor::embedded
