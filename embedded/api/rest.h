// Private to api/: the resource verbs behind ApiHandler.
#pragma once

#include <boost/json.hpp>
#include <functional>
#include <optional>
#include <string>

#include "embedded/api/api_handler.h"
#include "embedded/api/create_defaults.h"
#include "embedded/api/tables.h"
#include "embedded/storage/object_meta.h"
#include "kube/http/server.h"

namespace tailor::embedded {

// A request resolved to a resource: /api/v1/namespaces/ns/pods/name/status.
struct Target {
  const ResourceInfo* resource = nullptr;  // the stored version: what the verbs and store use
  std::string ns{};
  std::string name{};
  std::string subresource{};
  // The version of the URL when it is not the stored one (autoscaling/v1 HPAs): request bodies
  // are converted from it and responses to it.
  const ResourceInfo* served = nullptr;

  // The resource the URL names (its version's kind and apiVersion).
  const ResourceInfo& url_resource() const { return served ? *served : *resource; }
};

struct RestContext {
  ObjectStore& store;
  const ApiOptions& options;
  const kube::http::ServerRequest& request;
  Target target;
  UserInfo user{};  // who sent the request (after impersonation)
  kube::TimePoint now() const;
};

kube::http::ServerResponse json_response(int status, std::string body,
                                         std::string content_type = "application/json");
kube::http::ServerResponse error_response(const StatusError& error);

// The request's resourceVersion parameter; nullopt when absent or "0" (any version will do).
// Throws 400 when it is not a number.
std::optional<std::uint64_t> requested_resource_version(const kube::http::ServerRequest& request);

kube::http::ServerResponse list_objects(const RestContext& c);
kube::http::ServerResponse get_object(const RestContext& c);
kube::http::ServerResponse create_object(const RestContext& c);
kube::http::ServerResponse update_object(const RestContext& c);
kube::http::ServerResponse patch_object(const RestContext& c);
kube::http::ServerResponse delete_object(const RestContext& c);
void watch_objects(const RestContext& c, kube::http::Exchange& exchange);

// What a patch's change found: Warning texts for the response, and the strict decoding errors
// admission reports for a custom resource (AdmissionRequest::strict_errors).
struct PatchReport {
  std::vector<std::string> warnings;
  std::vector<std::string> deferred;
};

// Read-modify-write of the target with admission (Update) outside the store's lock: `change`
// builds the wanted object from the stored one. Retried on conflicts unless the wanted object
// names a resourceVersion of its own (then a stale one is a 409 Conflict). With `patch` the
// change is a patch's, which sets it on each attempt; admission's warnings are added to it.
using Change = std::function<bj::object(const bj::object&)>;
ObjectPtr guaranteed_update(const RestContext& c, const Change& change, UpdateScope scope,
                            PatchReport* patch = nullptr);

// The request body (JSON, or Kubernetes protobuf when the decoder is installed) as an object of
// the target's kind, with its namespace checked against the URL; 400/415 Status errors otherwise.
bj::object body_object(const RestContext& c);

// Served-version conversion at the API edge (Target::served); identity when stored as served.
bj::object to_stored(const Target& t, bj::object object);
bj::object to_served(const Target& t, bj::object object);
// The objects a Table embeds (includeObject=Object), in the served version: the verbs convert
// their Tables before serializing them.
void served_table(const Target& t, bj::object& table);
// A JSON response (object or list) of stored objects, in the served version; Tables pass as
// they are.
kube::http::ServerResponse served_response(const Target& t, kube::http::ServerResponse response);

// The Content-Type of Table responses.
inline constexpr const char* kTableType = "application/json;as=Table;v=v1;g=meta.k8s.io";
// Accept asks for a meta.k8s.io Table.
bool wants_table(const kube::http::ServerRequest& request);
TableRequest table_request(const RestContext& c);
// Opaque list continuation: the last key returned and the list's resourceVersion.
std::string encode_continue(const std::string& last_key, std::uint64_t resource_version);
std::pair<std::string, std::uint64_t> decode_continue(const std::string& token);

}  // namespace tailor::embedded
