#include "kube/client/rest_client.h"

#include <boost/json.hpp>
#include <mutex>
#include <random>
#include <thread>

#include "kube/client/api_response.h"
#include "kube/client/backoff.h"
#include "kube/client/credentials.h"
#include "kube/client/rate_limiter.h"
#include "kube/http/client.h"
#include "kube/http/url.h"

namespace tailor::kube {

namespace resources {
const ResourceType kPods{"", "v1", "pods", true};
const ResourceType kNodes{"", "v1", "nodes", false};
const ResourceType kEvents{"", "v1", "events", true};
const ResourceType kNamespaces{"", "v1", "namespaces", false};
const ResourceType kLeases{"coordination.k8s.io", "v1", "leases", true};
const ResourceType kDeployments{"apps", "v1", "deployments", true};
const ResourceType kReplicaSets{"apps", "v1", "replicasets", true};
const ResourceType kStatefulSets{"apps", "v1", "statefulsets", true};
const ResourceType kDaemonSets{"apps", "v1", "daemonsets", true};
const ResourceType kJobs{"batch", "v1", "jobs", true};
const ResourceType kCronJobs{"batch", "v1", "cronjobs", true};
const ResourceType kLimitRanges{"", "v1", "limitranges", true};
const ResourceType kResourceQuotas{"", "v1", "resourcequotas", true};
}  // namespace resources

ApiError::ApiError(int code, std::string reason, std::string message, std::string body)
    : std::runtime_error("API error " + std::to_string(code) + " " + reason + ": " + message),
      code_(code),
      reason_(std::move(reason)),
      message_(std::move(message)),
      body_(std::move(body)) {}

std::string path_of(const ObjectRef& ref) {
  const ResourceType& type = ref.type;
  std::string path =
      type.group.empty() ? "/api/" + type.version : "/apis/" + type.group + "/" + type.version;
  if (type.namespaced && !ref.namespace_.empty()) {
    path += "/namespaces/" + http::percent_encode(ref.namespace_);
  }
  path += "/" + type.resource;
  if (!ref.name.empty()) path += "/" + http::percent_encode(ref.name);
  if (!ref.subresource.empty()) path += "/" + ref.subresource;
  return path;
}

namespace {

using Clock = std::chrono::steady_clock;

http::QueryParams list_query(const ListOptions& options, bool watch) {
  http::QueryParams query;
  auto add = [&](const char* key, const std::string& value) {
    if (!value.empty()) query.emplace_back(key, value);
  };
  if (watch) query.emplace_back("watch", "true");
  add("labelSelector", options.label_selector);
  add("fieldSelector", options.field_selector);
  if (options.limit > 0) query.emplace_back("limit", std::to_string(options.limit));
  add("continue", options.continue_token);
  add("resourceVersion", options.resource_version);
  add("resourceVersionMatch", options.resource_version_match);
  if (options.timeout_seconds) {
    query.emplace_back("timeoutSeconds", std::to_string(*options.timeout_seconds));
  }
  if (watch && options.allow_watch_bookmarks) query.emplace_back("allowWatchBookmarks", "true");
  return query;
}

std::string with_query(std::string path, const http::QueryParams& query) {
  std::string text = http::build_query(query);
  return text.empty() ? path : path + "?" + text;
}

const char* content_type_of(PatchType type) {
  switch (type) {
    case PatchType::Merge:
      return "application/merge-patch+json";
    case PatchType::StrategicMerge:
      return "application/strategic-merge-patch+json";
    case PatchType::Json:
      return "application/json-patch+json";
    case PatchType::Apply:
      return "application/apply-patch+yaml";
  }
  return "application/json";
}

std::string delete_options_json(const DeleteOptions& options) {
  boost::json::object body{{"kind", "DeleteOptions"}, {"apiVersion", "v1"}};
  if (options.grace_period_seconds) body["gracePeriodSeconds"] = *options.grace_period_seconds;
  if (!options.propagation_policy.empty()) body["propagationPolicy"] = options.propagation_policy;
  boost::json::object preconditions;
  if (!options.preconditions_uid.empty()) preconditions["uid"] = options.preconditions_uid;
  if (!options.preconditions_resource_version.empty()) {
    preconditions["resourceVersion"] = options.preconditions_resource_version;
  }
  if (!preconditions.empty()) body["preconditions"] = std::move(preconditions);
  return boost::json::serialize(body);
}

// A 2xx answer of the API is a JSON object; anything else (an HTML page from a proxy, garbage)
// is reported here rather than as a confusing decode error later.
void expect_json_object(const std::string& body, const std::string& what) {
  auto first = body.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && body[first] == '{') return;
  std::string start = body.substr(0, 80);
  throw ResponseError(what + ": expected a JSON object, got " +
                      (body.empty() ? std::string("an empty body") : "'" + start + "'"));
}

// A failed connect never reached the server. A connection lost later may have carried the
// request: resending is harmless except for POST (a create could happen twice).
bool is_retryable_transport(http::ClientError::Kind kind, const std::string& method) {
  return kind == http::ClientError::Kind::Connect ||
         (kind == http::ClientError::Kind::Io && method != "POST");
}

}  // namespace

struct RestClient::Impl {
  explicit Impl(RestConfig c)
      : config(std::move(c)), credentials(config), limiter(config.qps, config.burst) {
    http::parse_url(config.server);  // fail early on a bad server URL
  }

  struct Request {
    std::string method{};
    std::string target{};
    std::string body{};
    std::string content_type{};
  };

  RestConfig config;
  CredentialSource credentials;
  RateLimiter limiter;
  std::mutex mutex;  // guards transport, transport_cert, rng
  std::shared_ptr<http::Client> transport;
  std::string transport_cert;
  std::mt19937_64 rng{std::random_device{}()};

  std::shared_ptr<http::Client> transport_for(const Credentials& credentials);
  http::ClientRequest to_http(const Request& request, const Credentials& credentials,
                              std::chrono::milliseconds timeout) const;
  void wait_before_retry(int attempt, const http::ClientResponse* response);
  std::string what(const Request& request) const { return request.method + " " + request.target; }
  // Sends with rate limiting, retries and 401 refresh; returns the 2xx answer or throws.
  // For streams, *delivered tells whether the sink has seen data: then a broken connection is
  // not retried (the caller would see events twice) but reported.
  http::ClientResponse execute(const Request& request, const http::BodySink* sink = nullptr,
                               const http::CancelCheck* cancelled = nullptr,
                               const bool* delivered = nullptr);
  std::string call(const Request& request) {
    http::ClientResponse response = execute(request);
    expect_json_object(response.body, what(request));
    return std::move(response.body);
  }
};

std::shared_ptr<http::Client> RestClient::Impl::transport_for(const Credentials& creds) {
  std::lock_guard lock(mutex);
  // An exec plugin may hand out a new client certificate: that needs a new TLS context.
  if (!transport || transport_cert != creds.client_cert_pem) {
    http::ClientOptions options;
    options.base_url = config.server;
    options.tls.ca_pem = config.ca_pem;
    options.tls.client_cert_pem = creds.client_cert_pem;
    options.tls.client_key_pem = creds.client_key_pem;
    options.tls.insecure_skip_verify = config.insecure_skip_tls_verify;
    options.tls.server_name = config.tls_server_name;
    try {
      transport = std::make_shared<http::Client>(std::move(options));
    } catch (const http::ClientError& e) {
      throw TransportError(e.what());
    }
    transport_cert = creds.client_cert_pem;
  }
  return transport;
}

http::ClientRequest RestClient::Impl::to_http(const Request& request, const Credentials& creds,
                                              std::chrono::milliseconds timeout) const {
  http::ClientRequest out;
  out.method = request.method;
  out.target = request.target;
  out.body = request.body;
  out.timeout = timeout;
  out.headers.emplace_back("Accept", "application/json");
  out.headers.emplace_back("User-Agent", config.user_agent);
  if (!request.content_type.empty()) out.headers.emplace_back("Content-Type", request.content_type);
  if (!creds.authorization.empty()) out.headers.emplace_back("Authorization", creds.authorization);
  return out;
}

void RestClient::Impl::wait_before_retry(int attempt, const http::ClientResponse* response) {
  if (response != nullptr) {
    if (auto after = parse_retry_after(response->header("Retry-After"))) {
      std::this_thread::sleep_for(*after);
      return;
    }
  }
  double jitter;
  {
    std::lock_guard lock(mutex);
    jitter = std::uniform_real_distribution<double>(0.0, 1.0)(rng);
  }
  std::this_thread::sleep_for(
      backoff_delay(attempt, config.retry_base_delay, config.retry_max_delay, jitter));
}

http::ClientResponse RestClient::Impl::execute(const Request& request, const http::BodySink* sink,
                                               const http::CancelCheck* cancelled,
                                               const bool* delivered) {
  bool refreshed = false;
  for (int attempt = 0;; ++attempt) {
    limiter.wait();
    Credentials creds = credentials.current();
    auto client = transport_for(creds);
    http::ClientRequest http_request = to_http(request, creds, config.timeout);
    http::ClientResponse response;
    try {
      response = sink == nullptr ? client->send(http_request)
                                 : client->stream(http_request, *sink, *cancelled);
    } catch (const http::ClientError& e) {
      if (e.kind() == http::ClientError::Kind::Cancelled) throw;
      bool mid_stream = delivered != nullptr && *delivered;
      if (is_retryable_transport(e.kind(), request.method) && attempt < config.max_retries &&
          !mid_stream) {
        wait_before_retry(attempt, nullptr);
        continue;
      }
      throw TransportError(std::string(e.what()) + " (attempt " + std::to_string(attempt + 1) +
                           ")");
    }
    if (response.status >= 200 && response.status < 300) return response;
    // A rotated token or an expired exec credential: reload once and try again.
    if (response.status == 401 && !refreshed && credentials.refresh(creds.generation)) {
      refreshed = true;
      --attempt;
      continue;
    }
    if (is_retryable_status(response.status) && attempt < config.max_retries) {
      wait_before_retry(attempt, &response);
      continue;
    }
    throw api_error_from_response(response.status, response.body, what(request));
  }
}

RestClient::RestClient(RestConfig config) : impl_(std::make_unique<Impl>(std::move(config))) {}
RestClient::~RestClient() = default;

const RestConfig& RestClient::config() const { return impl_->config; }

std::string RestClient::get(const ObjectRef& ref) { return impl_->call({"GET", path_of(ref)}); }

std::string RestClient::list(const ObjectRef& ref, const ListOptions& options) {
  return impl_->call({"GET", with_query(path_of(ref), list_query(options, false))});
}

std::string RestClient::create(const ObjectRef& ref, std::string_view body) {
  return impl_->call({"POST", path_of(ref), std::string(body), "application/json"});
}

std::string RestClient::update(const ObjectRef& ref, std::string_view body) {
  return impl_->call({"PUT", path_of(ref), std::string(body), "application/json"});
}

std::string RestClient::patch(const ObjectRef& ref, PatchType type, std::string_view body,
                              const PatchOptions& options) {
  http::QueryParams query;
  if (type == PatchType::Apply && options.field_manager.empty()) {
    throw std::invalid_argument("server-side apply of " + path_of(ref) + " needs a field manager");
  }
  if (!options.field_manager.empty()) query.emplace_back("fieldManager", options.field_manager);
  if (type == PatchType::Apply && options.force) query.emplace_back("force", "true");
  return impl_->call(
      {"PATCH", with_query(path_of(ref), query), std::string(body), content_type_of(type)});
}

std::string RestClient::remove(const ObjectRef& ref, const DeleteOptions& options) {
  return impl_->call({"DELETE", path_of(ref), delete_options_json(options), "application/json"});
}

void RestClient::watch(const ObjectRef& ref, const ListOptions& options,
                       const std::function<bool(const RawWatchEvent&)>& on_event,
                       const StopToken& stop) {
  Impl::Request request{"GET", with_query(path_of(ref), list_query(options, true))};
  WatchLineBuffer lines;
  bool delivered = false;
  http::BodySink sink = [&](std::string_view data) {
    delivered = true;
    return lines.feed(data, [&](std::string_view line) {
      return on_event(decode_raw_watch_event(line)) && !stop.stop_requested();
    });
  };
  http::CancelCheck cancelled = [&] { return stop.stop_requested(); };
  try {
    impl_->execute(request, &sink, &cancelled, &delivered);
  } catch (const http::ClientError& e) {
    // Cancelled before the answer arrived: the caller asked for it.
    if (e.kind() != http::ClientError::Kind::Cancelled) throw TransportError(e.what());
  }
}

}  // namespace tailor::kube
