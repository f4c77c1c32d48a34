// create, update, patch and delete.
#include <algorithm>

#include "embedded/api/apply_patch.h"
#include "embedded/api/field_validation.h"
#include "embedded/api/known_fields.h"
#include "embedded/api/patch.h"
#include "embedded/api/resources.h"
#include "embedded/api/rest.h"
#include "embedded/api/strict_decoding.h"
#include "embedded/api/validation.h"
#include "embedded/storage/field_errors.h"
#include "embedded/storage/json_text.h"
#include "embedded/storage/object_meta.h"

namespace tailor::embedded {
namespace {

std::string media_type(std::string_view content_type) {
  std::string t(content_type.substr(0, content_type.find(';')));
  while (!t.empty() && t.back() == ' ') t.pop_back();
  return t;
}

// encoding/json's summary of a body it could not decode (summarizeData in apiserver's handlers).
std::string summary_of(std::string_view body) {
  constexpr std::size_t kMax = 30;
  if (body.empty()) return "<empty>";
  if (body.front() == '{') {
    return body.size() > kMax ? std::string(body.substr(0, kMax)) + " ..." : std::string(body);
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned char ch : body.substr(0, kMax)) {
    hex += kHex[ch >> 4];
    hex += kHex[ch & 15];
  }
  return body.size() > kMax ? hex + " ..." : hex;
}

// The request body as JSON. Nesting deeper than kube-apiserver's limit gets its message: the
// serializer's kind sniffing (encoding/json) fails first, so the object is "unrecognized". A
// number out of float64's range passes the sniffing and fails the decoding into the object.
bj::value parse_json(const RestContext& c) {
  const std::string& body = c.request.body;
  boost::system::error_code ec;
  bj::value v = parse_json_text(body, ec);
  const ResourceInfo& r = c.target.url_resource();
  if (ec == number_out_of_range()) {
    throw bad_request(r.kind + " in version \"" + r.version + "\" cannot be handled as a " +
                      r.kind + ": " + go_json_error(body, ec));
  }
  if (std::string go = go_json_error(body, ec); !go.empty()) {
    throw bad_request("the object provided is unrecognized (must be of type " + r.kind +
                      "): couldn't get version/kind; json parse error: " + go + " (" +
                      summary_of(body) + ")");
  }
  if (ec) throw bad_request("the body of the request is not valid JSON: " + ec.message());
  return v;
}

// The body as an object of the URL's kind and version, its apiVersion, kind and namespace checked.
bj::object served_object(const RestContext& c, bj::value v) {
  if (!v.is_object()) throw bad_request("the body of the request must be a JSON object");
  bj::object& o = v.as_object();
  // The body is in the URL's version; the verbs get it in the stored one.
  const ResourceInfo& r = c.target.url_resource();
  std::string api_version = o.contains("apiVersion") && o["apiVersion"].is_string()
                                ? std::string(o["apiVersion"].as_string())
                                : "";
  std::string kind =
      o.contains("kind") && o["kind"].is_string() ? std::string(o["kind"].as_string()) : "";
  if (!api_version.empty() && api_version != r.api_version()) {
    throw bad_request("the API version in the data (" + api_version +
                      ") does not match the expected API version (" + r.api_version() + ")");
  }
  if (!kind.empty() && kind != r.kind) {
    throw bad_request("the kind in the data (" + kind + ") does not match the expected kind (" +
                      r.kind + ")");
  }
  bj::object& meta = metadata(o);
  if (r.namespaced) {
    std::string ns = meta_string(o, "namespace");
    if (!ns.empty() && ns != c.target.ns) {
      throw bad_request(
          "the namespace of the provided object does not match the namespace sent on the request");
    }
    meta["namespace"] = c.target.ns;
  }
  return std::move(o);
}

UpdateScope scope_of(const Target& t) {
  return t.subresource == "status" ? UpdateScope::Status : UpdateScope::Main;
}

void check_name(const bj::object& o, const Target& t) {
  std::string name = meta_string(o, "name");
  if (name != t.name) {
    throw bad_request("the name of the object (" + name + ") does not match the name on the URL (" +
                      t.name + ")");
  }
}

// Pods bound to a node terminate gracefully (the node's agent deletes them with grace 0);
// everything else goes at once. The request's gracePeriodSeconds (body or query) wins.
std::int64_t grace_period(const RestContext& c, const bj::value& options) {
  if (options.is_object()) {
    if (const bj::value* g = options.as_object().if_contains("gracePeriodSeconds");
        g && g->is_number()) {
      return std::max<std::int64_t>(0, g->to_number<std::int64_t>());
    }
  }
  if (auto q = c.request.query_param("gracePeriodSeconds")) {
    try {
      return std::max<long long>(0, std::stoll(*q));
    } catch (const std::exception&) {
      throw bad_request("invalid gracePeriodSeconds \"" + *q + "\"");
    }
  }
  const ResourceInfo& r = *c.target.resource;
  if (!r.group.empty() || r.resource != "pods") return 0;
  ObjectPtr pod = c.store.get(r, c.target.ns, c.target.name);
  const bj::value* node = find_path(*pod, "spec.nodeName");
  const bj::value* phase = find_path(*pod, "status.phase");
  bool finished = phase && phase->is_string() &&
                  (phase->as_string() == "Succeeded" || phase->as_string() == "Failed");
  if (!node || !node->is_string() || node->as_string().empty() || finished) return 0;
  const bj::value* grace = find_path(*pod, "spec.terminationGracePeriodSeconds");
  return grace && grace->is_number() ? grace->to_number<std::int64_t>() : 30;
}

}  // namespace

namespace {

// The request body in the URL's version.
bj::object served_body(const RestContext& c) {
  std::string type = media_type(c.request.header("Content-Type"));
  const ProtobufDecoder& protobuf = c.options.extensions.protobuf;
  if (type == "application/vnd.kubernetes.protobuf" && protobuf) {
    const ResourceInfo& r = c.target.url_resource();
    return served_object(c, protobuf(r, c.request.body));
  }
  if (type != "application/json" && !type.empty()) throw unsupported_media_type(type);
  return served_object(c, parse_json(c));
}

}  // namespace

bj::object body_object(const RestContext& c) { return to_stored(c.target, served_body(c)); }

namespace {

FieldValidation field_validation(const RestContext& c) {
  return parse_field_validation(c.request.query_param("fieldValidation").value_or(""));
}

// A create or update body, its unknown fields dropped (checked in the URL's version: a served
// version's conversion would lose them), converted to the stored version. A custom resource's
// strict decoding errors are deferred to admission, which knows its schema.
struct Decoded {
  bj::object object;
  std::vector<std::string> warnings;
  std::vector<std::string> deferred{};
};

bool json_text(const RestContext& c) {
  return media_type(c.request.header("Content-Type")) != "application/vnd.kubernetes.protobuf";
}

// `apply`: a server-side apply's body, whose unknown fields have failed the request already and
// whose repeated keys are go-yaml's (apply_patch.h).
Decoded decoded(const RestContext& c, bj::object served, bool apply = false) {
  const ResourceInfo& r = c.target.url_resource();
  const KnownFields* known = known_fields(r);
  Decoded d;
  if (FieldValidation mode = field_validation(c); mode != FieldValidation::Ignore && !apply) {
    // Read from the text: the parsed tree has lost repeated keys (a protobuf body has neither).
    std::vector<std::string> errors;
    if (json_text(c)) errors = strict_decoding_errors(c.request.body, known);
    if (known) {
      d.warnings = report_decoding_errors(r, errors, mode);
    } else {
      d.deferred = std::move(errors);
    }
  }
  if (known) drop_unknown_fields(*known, served);
  d.object = to_stored(c.target, std::move(served));
  return d;
}

// RFC 7234 warning headers, as kube-apiserver sends them (kubectl prints "Warning: ...").
kube::http::ServerResponse with_warnings(kube::http::ServerResponse response,
                                         const std::vector<std::string>& warnings) {
  for (const std::string& w : warnings) {
    std::string quoted;
    for (char ch : w) {
      if (ch == '"' || ch == '\\') quoted += '\\';
      quoted += ch;
    }
    response.headers.emplace_back("Warning", "299 - \"" + quoted + "\"");
  }
  return response;
}

// Returns the plugins' warnings. `deferred`: strict decoding errors for the schema plugin of a
// custom resource (reported here if no plugin did).
std::vector<std::string> admit(const RestContext& c, AdmissionOperation op, bj::object& o,
                               const bj::object* old, bool patch = false,
                               std::vector<std::string> deferred = {}) {
  const Target& t = c.target;
  AdmissionRequest request{op, *t.resource, t.subresource, t.ns, meta_string(o, "name"), o, old};
  request.dry_run = c.request.query_param("dryRun").has_value();
  request.field_validation = field_validation(c);
  request.patch = patch;
  request.strict_errors = std::move(deferred);
  request.user = &c.user;
  bj::value apply_patch;
  if (media_type(c.request.header("Content-Type")) == "application/apply-patch+yaml" &&
      !known_fields(t.url_resource())) {
    apply_patch = parse_json(c);
    if (apply_patch.is_object()) request.apply_patch = &apply_patch.as_object();
  }
  c.options.extensions.admit(request);
  std::vector<std::string> warnings = std::move(request.warnings);
  if (!request.strict_errors.empty()) {
    std::vector<std::string> left =
        patch
            ? report_patch_errors(request.strict_errors, request.field_validation, bj::serialize(o))
            : report_decoding_errors(t.url_resource(), request.strict_errors,
                                     request.field_validation);
    warnings.insert(warnings.end(), left.begin(), left.end());
  }
  return warnings;
}

void append(std::vector<std::string>& to, std::vector<std::string> more) {
  to.insert(to.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
}

kube::http::ServerResponse create_checked(const RestContext& c, Decoded body) {
  bj::object& o = body.object;
  std::vector<std::string>& warnings = body.warnings;
  metadata(o).erase("resourceVersion");
  metadata(o).erase("uid");  // the server's to choose (admission may, for a Job's selector)
  apply_create_defaults(*c.target.resource, o);
  validate_create(*c.target.resource, o);
  append(warnings,
         admit(c, AdmissionOperation::Create, o, nullptr, false, std::move(body.deferred)));
  ObjectPtr created = c.store.create(*c.target.resource, std::move(o));
  return with_warnings(json_response(201, bj::serialize(*created)), warnings);
}

// kube-apiserver's patch types: custom resources have no strategic merge patch (no Go struct
// carries their merge keys).
using PatchFn = bj::value (*)(const bj::value&, const bj::value&);

PatchFn patch_function(const std::string& type, const ResourceInfo& r) {
  bool custom = !is_builtin(r);
  if (type == "application/json-patch+json") return json_patch;
  if (type == "application/merge-patch+json" || type == "application/apply-patch+yaml") {
    return merge_patch;
  }
  if (type == "application/strategic-merge-patch+json" && !custom) return strategic_merge_patch;
  throw StatusError(415, "UnsupportedMediaType",
                    std::string("the body of the request was in an unknown format - accepted "
                                "media types include: application/json-patch+json, "
                                "application/merge-patch+json, ") +
                        (custom ? "" : "application/strategic-merge-patch+json, ") +
                        "application/apply-patch+yaml");
}

// A patch's strict decoding errors, dropped from its result: the patch's own (repeated keys; a
// JSON patch's operations also their unknown members), then the unknown fields of the result (in
// the URL's version). Strict's 422 quotes the patched object, or a strategic merge patch's patch
// as Go prints it. A custom resource's are deferred to its schema's admission plugin.
// One walk of the result: Strict only lists its unknown fields (any error fails the request, so
// nothing is left to drop, and the 422 quotes them); the other modes drop them as they go.
PatchReport check_patched_fields(const RestContext& c, bj::object& patched, const bj::value& patch,
                                 PatchFn apply) {
  FieldValidation mode = field_validation(c);
  const KnownFields* known = known_fields(c.target.url_resource());
  PatchReport report;
  std::vector<std::string> errors;
  // A server-side apply's body is checked before (apply_patch.h).
  bool server_side_apply =
      media_type(c.request.header("Content-Type")) == "application/apply-patch+yaml";
  if (mode != FieldValidation::Ignore && !server_side_apply) {
    errors =
        apply == json_patch
            ? strict_decoding_errors(c.request.body, &json_patch_operation_fields(), "json patch ")
            : strict_decoding_errors(c.request.body, nullptr);
  }
  if (!known) {
    report.deferred = std::move(errors);
    return report;
  }
  std::vector<std::string> paths = mode == FieldValidation::Strict
                                       ? unknown_fields(*known, patched)
                                       : drop_unknown_fields(*known, patched);
  if (mode == FieldValidation::Ignore) return report;
  std::sort(paths.begin(), paths.end());  // decoded from Go maps: sorted
  append(errors, unknown_field_errors(paths));
  std::string value;
  if (mode == FieldValidation::Strict && !errors.empty()) {
    value = apply == strategic_merge_patch ? go_printed(patch) : bj::serialize(patched);
  }
  report.warnings = report_patch_errors(errors, mode, value);
  return report;
}

}  // namespace

kube::http::ServerResponse create_object(const RestContext& c) {
  if (!c.target.subresource.empty()) {
    throw method_not_supported(c.target.resource->group_resource(), "create");
  }
  return create_checked(c, decoded(c, served_body(c)));
}

kube::http::ServerResponse update_object(const RestContext& c) {
  auto [o, warnings, deferred] = decoded(c, served_body(c));
  check_name(o, c.target);
  const Target& t = c.target;
  ObjectPtr current = c.store.get(*t.resource, t.ns, t.name);
  append(warnings,
         admit(c, AdmissionOperation::Update, o, current.get(), false, std::move(deferred)));
  ObjectPtr updated = c.store.update(*t.resource, std::move(o), scope_of(t));
  return with_warnings(json_response(200, bj::serialize(*updated)), warnings);
}

kube::http::ServerResponse patch_object(const RestContext& c) {
  std::string type = media_type(c.request.header("Content-Type"));
  const Target& t = c.target;
  PatchFn apply = patch_function(type, *t.resource);
  bj::value patch = parse_json(c);
  const bool server_side_apply = type == "application/apply-patch+yaml";
  std::vector<std::string> warnings;  // the apply handler's, before admission's
  if (server_side_apply) {
    const KnownFields* known = known_fields(t.url_resource());
    if (known && patch.is_object()) check_apply_patch_fields(*known, patch.as_object());
    if (FieldValidation mode = field_validation(c); mode != FieldValidation::Ignore) {
      warnings = report_repeated_keys(c.request.body, mode == FieldValidation::Strict);
    }
  }
  // Server-side apply creates what does not exist yet (field ownership is not tracked: applying
  // to an existing object merges like a JSON merge patch).
  if (server_side_apply && t.subresource.empty()) {
    try {
      c.store.get(*t.resource, t.ns, t.name);
    } catch (const StatusError& e) {
      if (e.code() != 404) throw;
      Decoded body = decoded(c, served_object(c, patch), true);
      check_name(body.object, t);
      body.warnings = std::move(warnings);
      return create_checked(c, std::move(body));
    }
  }
  PatchReport report;
  ObjectPtr patched = guaranteed_update(
      c,
      [&](const bj::object& current) {
        // A patch is written against the URL's version of the object.
        bj::value result = apply(to_served(t, current), patch);
        if (!result.is_object()) throw bad_request("the patch did not produce an object");
        bj::object& o = result.as_object();
        report = check_patched_fields(c, o, patch, apply);
        check_name(o, t);
        if (t.resource->namespaced && meta_string(o, "namespace") != t.ns) {
          throw bad_request(
              "the namespace of the provided object does not match the namespace sent on the "
              "request");
        }
        return to_stored(t, std::move(o));
      },
      scope_of(t), &report);
  append(warnings, std::move(report.warnings));
  return with_warnings(json_response(200, bj::serialize(*patched)), warnings);
}

ObjectPtr guaranteed_update(const RestContext& c, const Change& change, UpdateScope scope,
                            PatchReport* patch) {
  const Target& t = c.target;
  for (int attempt = 1;; ++attempt) {
    ObjectPtr current = c.store.get(*t.resource, t.ns, t.name);
    std::string stored_version = meta_string(*current, "resourceVersion");
    bj::object o = change(*current);
    std::string wanted_version = meta_string(o, "resourceVersion");
    // A version the change asked for is a precondition; otherwise the one read here is, and a
    // conflict means someone else wrote in between: read again, as kube-apiserver does.
    bool precondition = !wanted_version.empty() && wanted_version != stored_version;
    std::vector<std::string> admitted =
        admit(c, AdmissionOperation::Update, o, current.get(), patch != nullptr,
              patch ? patch->deferred : std::vector<std::string>{});
    if (patch) append(patch->warnings, std::move(admitted));
    metadata(o)["resourceVersion"] = precondition ? wanted_version : stored_version;
    try {
      return c.store.update(*t.resource, std::move(o), scope);
    } catch (const StatusError& e) {
      if (e.code() != 409 || precondition || attempt >= 16) throw;
    }
  }
}

namespace {

// DeleteOptions.propagationPolicy (or the legacy orphanDependents) as the finalizer the deletion
// adds: Orphan -> "orphan", Foreground -> "foregroundDeletion"; "" for Background.
std::string propagation_finalizer(const RestContext& c, const bj::value& options) {
  std::string policy = c.request.query_param("propagationPolicy").value_or("");
  if (options.is_object()) {
    const bj::object& o = options.as_object();
    if (const bj::value* p = o.if_contains("propagationPolicy"); p && p->is_string()) {
      policy = p->as_string();
    } else if (const bj::value* orphan = o.if_contains("orphanDependents");
               orphan && orphan->is_bool() && policy.empty()) {
      policy = orphan->as_bool() ? "Orphan" : "Background";
    }
  }
  if (policy.empty() || policy == "Background") return "";
  if (policy == "Orphan") return "orphan";
  if (policy == "Foreground") return "foregroundDeletion";
  throw invalid(
      "meta.k8s.io", "DeleteOptions", "",
      {not_supported("propagationPolicy", policy, {"Foreground", "Background", "Orphan"})});
}

}  // namespace

kube::http::ServerResponse delete_object(const RestContext& c) {
  if (!c.target.subresource.empty())
    throw method_not_supported(c.target.resource->group_resource(), "delete");
  Preconditions pre;
  bj::value options;
  if (!c.request.body.empty()) {
    options = parse_json(c);
    if (!options.is_object()) throw bad_request("DeleteOptions must be a JSON object");
    if (const bj::value* p = options.as_object().if_contains("preconditions");
        p && p->is_object()) {
      const bj::object& po = p->as_object();
      if (const bj::value* uid = po.if_contains("uid"); uid && uid->is_string())
        pre.uid = uid->as_string();
      if (const bj::value* rv = po.if_contains("resourceVersion"); rv && rv->is_string()) {
        pre.resource_version = rv->as_string();
      }
    }
  }
  const ResourceInfo& r = *c.target.resource;
  std::string finalizer = propagation_finalizer(c, options);
  Removal removal =
      c.store.remove(r, c.target.ns, c.target.name, pre, grace_period(c, options), finalizer);
  if (!removal.deleted) return json_response(200, bj::serialize(*removal.object));
  const ObjectPtr& gone = removal.object;
  bj::object details{{"name", c.target.name}};
  if (!r.group.empty()) details["group"] = r.group;
  details["kind"] = r.resource;
  details["uid"] = meta_string(*gone, "uid");
  bj::object status{{"kind", "Status"},
                    {"apiVersion", "v1"},
                    {"metadata", bj::object{}},
                    {"status", "Success"},
                    {"details", std::move(details)}};
  return json_response(200, bj::serialize(status));
}

}  // namespace tailor::embedded
