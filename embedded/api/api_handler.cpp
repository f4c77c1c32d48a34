#include "embedded/api/api_handler.h"

#include "embedded/api/resources.h"
#include "embedded/api/rest.h"
#include "embedded/auth/impersonation.h"
#include "embedded/auth/request_attributes.h"
#include "embedded/discovery/discovery.h"

namespace tailor::embedded {
namespace {

std::vector<std::string> segments(std::string_view path) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t slash = path.find('/', start);
    if (slash == std::string_view::npos) slash = path.size();
    if (slash > start) out.emplace_back(path.substr(start, slash - start));
    start = slash + 1;
  }
  return out;
}

StatusError no_such_resource() {
  StatusError e(404, "NotFound", "the server could not find the requested resource");
  e.with_details("", "", "");
  return e;
}

std::string at(const std::vector<std::string>& v, std::size_t i) {
  return i < v.size() ? v[i] : "";
}

// rest: the segments after /api/v1 or /apis/<group>/<version>.
Target resolve(const std::string& group, const std::string& version,
               const std::vector<std::string>& rest) {
  Target t;
  if (rest.size() >= 3 && rest[0] == "namespaces") {
    const ResourceInfo* r = find_resource(group, version, rest[2]);
    if (r && r->namespaced) {
      if (rest.size() > 5) throw no_such_resource();
      return {r, rest[1], at(rest, 3), at(rest, 4)};
    }
  }
  t.resource = find_resource(group, version, at(rest, 0));
  if (!t.resource || rest.size() > 3) throw no_such_resource();
  if (t.resource->namespaced && rest.size() > 1) throw no_such_resource();
  t.name = at(rest, 1);
  t.subresource = at(rest, 2);
  return t;
}

// The verbs work on the stored version; the served one is kept for conversion at the edge.
Target resolve_stored(const std::string& group, const std::string& version,
                      const std::vector<std::string>& rest) {
  Target t = resolve(group, version, rest);
  if (t.resource->storage_version.empty()) return t;
  t.served = t.resource;
  t.resource = find_resource(group, t.served->storage_version, t.served->resource);
  return t;
}

kube::http::ServerResponse discovery_response(std::optional<std::string> body) {
  if (!body) throw no_such_resource();
  return json_response(200, std::move(*body));
}

bool accepts_aggregated(const kube::http::ServerRequest& request) {
  return request.header("Accept").find("as=APIGroupDiscoveryList") != std::string_view::npos &&
         request.header("Accept").find("v=v2;") != std::string_view::npos;
}

bool authenticated(const kube::http::ServerRequest& request, const std::string& token) {
  if (token.empty() || !request.peer_common_name.empty()) return true;
  return request.header("Authorization") == "Bearer " + token;
}

RequestAttributes attributes_of(const kube::http::ServerRequest& request, UserInfo user) {
  RequestAttributes a =
      request_attributes({request.method, request.path, request.query_param("watch"),
                          request.query_param("fieldSelector")});
  a.user = std::move(user);
  return a;
}

}  // namespace

ApiHandler::ApiHandler(ObjectStore& store, ApiOptions options)
    : store_(store), options_(std::move(options)) {}

void ApiHandler::handle(kube::http::Exchange& exchange) {
  try {
    serve(exchange);
  } catch (const StatusError& e) {
    exchange.respond(error_response(e));
  } catch (const std::exception& e) {
    exchange.respond(error_response(internal_error(e.what())));
  }
}

// Authentication, impersonation, then authorization of what the URL asks, before any routing
// (a forbidden request learns nothing of what exists, and a forbidden write leaves no trace).
UserInfo ApiHandler::authenticate(const kube::http::ServerRequest& request) const {
  const ApiExtensions& x = options_.extensions;
  if (!x.authenticate) {
    if (!authenticated(request, options_.bearer_token)) throw unauthorized();
    return {};
  }
  UserInfo user = x.authenticate(request);
  if (!x.authorize) return user;
  user = impersonate(std::move(user), request, x.authorize);
  RequestAttributes attributes = attributes_of(request, user);
  AuthorizationDecision decision = x.authorize(attributes);
  if (x.record_decision) x.record_decision(request, attributes, decision);
  if (!decision.allowed) throw forbidden(attributes, decision.reason);
  return user;
}

void ApiHandler::serve(kube::http::Exchange& exchange) {
  const kube::http::ServerRequest& request = exchange.request();
  const std::string& path = request.path;
  if (path == "/healthz" || path == "/livez" || path == "/readyz") {
    exchange.respond({200, {{"Content-Type", "text/plain; charset=utf-8"}}, "ok"});
    return;
  }
  UserInfo user = authenticate(request);
  if (request.body.size() > options_.max_body_bytes) {
    // apiserver's limitedReadBody: errors.NewRequestEntityTooLargeError("limit is N").
    throw StatusError(
        413, "RequestEntityTooLarge",
        "Request entity too large: limit is " + std::to_string(options_.max_body_bytes));
  }
  std::vector<std::string> seg = segments(path);
  if (path == "/version") {
    exchange.respond(
        {200,
         {{"Content-Type", "application/json"}, {"Cache-Control", "no-cache, private"}},
         version_document()});
    return;
  }
  if ((path == "/api" || path == "/apis") && accepts_aggregated(request)) {
    exchange.respond(
        {200, {{"Content-Type", kAggregatedDiscoveryType}}, aggregated_discovery(path == "/api")});
    return;
  }
  if (path == "/api") {
    exchange.respond(json_response(200, legacy_api_versions(std::string(request.header("Host")))));
    return;
  }
  if (path == "/apis") {
    exchange.respond(json_response(200, legacy_api_groups()));
    return;
  }
  if (path == "/openapi/v3") {
    exchange.respond(json_response(200, openapi_v3_root()));
    return;
  }
  if (path.starts_with("/openapi/v3/")) {
    exchange.respond(discovery_response(openapi_v3_group_version(path.substr(12))));
    return;
  }
  std::string group, version;
  std::vector<std::string> rest;
  if (at(seg, 0) == "api" && seg.size() >= 2) {
    version = seg[1];
    rest.assign(seg.begin() + 2, seg.end());
  } else if (at(seg, 0) == "apis" && seg.size() >= 2) {
    group = seg[1];
    if (seg.size() == 2) {
      exchange.respond(discovery_response(legacy_api_group(group)));
      return;
    }
    version = seg[2];
    rest.assign(seg.begin() + 3, seg.end());
  } else {
    throw no_such_resource();
  }
  if (rest.empty()) {
    exchange.respond(discovery_response(legacy_resource_list(group, version)));
    return;
  }
  RestContext c{store_, options_, request, resolve_stored(group, version, rest), std::move(user)};
  if (const SubresourceHandler* h =
          options_.extensions.handler(*c.target.resource, c.target.subresource)) {
    exchange.respond((*h)(c));
    return;
  }
  if (const StreamingHandler* h =
          options_.extensions.streaming_handler(*c.target.resource, c.target.subresource)) {
    return (*h)(c, exchange);
  }
  // Only status is served generically; other subresources need their handler.
  if (!c.target.subresource.empty() &&
      (c.target.subresource != "status" || !c.target.resource->has_subresource("status"))) {
    throw no_such_resource();
  }
  const std::string& m = request.method;
  const GroupResource gr = c.target.resource->group_resource();
  if (c.target.name.empty()) {
    std::optional<std::string> watch = request.query_param("watch");
    if (m == "GET" && watch && (*watch == "true" || *watch == "1")) {
      watch_objects(c, exchange);
      return;
    }
    if (m == "GET") return exchange.respond(served_response(c.target, list_objects(c)));
    if (m == "POST") return exchange.respond(served_response(c.target, create_object(c)));
    throw method_not_supported(gr, m == "DELETE" ? "deletecollection" : m);
  }
  if (m == "GET") return exchange.respond(served_response(c.target, get_object(c)));
  if (m == "PUT") return exchange.respond(served_response(c.target, update_object(c)));
  if (m == "PATCH") return exchange.respond(served_response(c.target, patch_object(c)));
  if (m == "DELETE") return exchange.respond(served_response(c.target, delete_object(c)));
  throw method_not_supported(gr, m);
}

}  // namespace tailor::embedded
