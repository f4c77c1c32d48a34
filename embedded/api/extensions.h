// Where features outside api/ plug into the REST handler: admission plugins (pod resize rules,
// quota and LimitRange, CRD schema validation, mutating webhooks), handlers for subresources
// other than status (resize, eviction, binding, scale) and for virtual resources
// (selfsubjectaccessreviews), the decoder of Kubernetes protobuf request bodies, and
// authentication and authorization (auth/).
#pragma once

#include <boost/json/fwd.hpp>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "embedded/api/field_validation.h"
#include "embedded/auth/rbac_rules.h"
#include "embedded/storage/resource_info.h"
#include "embedded/storage/status_error.h"
#include "kube/http/server.h"

namespace tailor::embedded {

struct RestContext;

enum class AdmissionOperation { Create, Update };

// One write as admission plugins see it, after defaulting and before storage.
struct AdmissionRequest {
  AdmissionOperation operation;
  const ResourceInfo& resource;
  std::string subresource;                // "" for the object itself, "status", "resize", ...
  std::string ns;                         // "" when cluster-scoped
  std::string name;                       // "" on create with generateName
  boost::json::object& object;            // what will be stored; mutating plugins change it
  const boost::json::object* old_object;  // the stored object on update; null on create
  bool dry_run = false;
  // The request's fieldValidation (Ignore for the control loops' own writes) and the Warning
  // headers plugins add in Warn mode.
  FieldValidation field_validation = FieldValidation::Ignore;
  std::vector<std::string> warnings{};
  // The object is a patch's result: a Strict unknown-field error is the patch handler's 422.
  bool patch = false;
  // Strict decoding errors the API found in the request for a kind it has no field list for (a
  // custom resource's repeated keys): the plugin that knows the schema reports them first, with
  // the unknown fields it prunes, and clears them (the API reports what is left).
  std::vector<std::string> strict_errors{};
  // A server-side apply's patch, in the URL's version, for a kind the API has no field list for:
  // the plugin that knows the schema fails the fields it does not declare
  // (check_pruned_apply_fields in apply_patch.h), whatever fieldValidation says.
  const boost::json::object* apply_patch = nullptr;
  // Who asks (null for the control loops' own writes): RBAC's escalation checks read it.
  const UserInfo* user = nullptr;
};

// admission.NewForbidden: the 403 an admission plugin refuses a request with, naming the object
// (`pods "web" is forbidden: <why>`; `pods is forbidden: <why>` when it has no name yet).
StatusError admission_forbidden(const AdmissionRequest& request, const std::string& why);

// Throws StatusError to reject (with Kubernetes' code, reason and message).
using AdmissionPlugin = std::function<void(AdmissionRequest&)>;
// Serves every verb on a subresource (or, keyed with an empty subresource, on a virtual
// resource); throws StatusError for verbs it does not serve.
using SubresourceHandler = std::function<kube::http::ServerResponse(const RestContext&)>;
// Serves a subresource that answers by streaming (pods/log with follow): it responds or streams
// on the exchange itself.
using StreamingHandler = std::function<void(const RestContext&, kube::http::Exchange&)>;
// A protobuf body (magic "k8s\0" + runtime.Unknown) as the JSON object it encodes.
using ProtobufDecoder =
    std::function<boost::json::object(const ResourceInfo&, std::string_view body)>;
// Who sent the request; throws StatusError 401.
using Authenticator = std::function<UserInfo(const kube::http::ServerRequest&)>;
// Whether the request's user may do what it asks.
using Authorizer = std::function<AuthorizationDecision(const RequestAttributes&)>;
// Told every decision the authorizer made on a request (auth/audit_log: --audit-log-path).
using DecisionRecorder = std::function<void(
    const kube::http::ServerRequest&, const RequestAttributes&, const AuthorizationDecision&)>;

struct ApiExtensions {
  std::vector<AdmissionPlugin> mutating{};  // in order, before all validating plugins
  std::vector<AdmissionPlugin> validating{};
  // Key: subresource_key(resource, subresource), e.g. "pods/resize", "deployments.apps/scale".
  std::map<std::string, SubresourceHandler> handlers{};
  std::map<std::string, StreamingHandler> streaming{};  // same keys
  ProtobufDecoder protobuf{};
  // Unset: ApiOptions::bearer_token (or any verified client certificate) is the administrator.
  Authenticator authenticate{};
  // Unset: everyone may do everything.
  Authorizer authorize{};
  // Unset: decisions are not recorded. Access reviews ask `authorize` without it: only what
  // requests did is recorded, never what a review asked about.
  DecisionRecorder record_decision{};

  // Mutating plugins, then validating ones; the first rejection throws.
  void admit(AdmissionRequest& request) const;
  const SubresourceHandler* handler(const ResourceInfo& resource,
                                    const std::string& subresource) const;
  const StreamingHandler* streaming_handler(const ResourceInfo& resource,
                                            const std::string& subresource) const;
};

// "pods/resize" for the core group, "<resource>.<group>/<subresource>" otherwise.
std::string subresource_key(const ResourceInfo& resource, const std::string& subresource);

}  // namespace tailor::embedded
