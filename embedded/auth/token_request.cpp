#include "embedded/auth/token_request.h"

#include <boost/json.hpp>

#include "embedded/api/rest.h"
#include "embedded/auth/stored_objects.h"
#include "embedded/auth/token_claims.h"
#include "embedded/storage/json_text.h"

namespace tailor::embedded {
namespace {

constexpr const char* kGroup = "authentication.k8s.io";
constexpr std::int64_t kMinExpiration = 600;
constexpr std::int64_t kMaxExpiration = std::int64_t{1} << 32;

// How protobuf bodies name the kind (the decoder checks the envelope against it).
const ResourceInfo& token_request_kind() {
  static const ResourceInfo r{
      .group = kGroup, .version = "v1", .resource = "tokenrequests", .kind = "TokenRequest"};
  return r;
}

bj::object request_body(const RestContext& c) {
  if (c.request.header("Content-Type").starts_with("application/vnd.kubernetes.protobuf") &&
      c.options.extensions.protobuf) {
    return c.options.extensions.protobuf(token_request_kind(), c.request.body);
  }
  bj::error_code ec;
  bj::value v = parse_json_text(c.request.body, ec);
  if (ec || !v.is_object()) throw bad_request("the body of the request must be a TokenRequest");
  return std::move(v.get_object());
}

StatusError invalid_expiration(std::int64_t seconds, const std::string& why) {
  return invalid(kGroup, "TokenRequest", "",
                 {{"FieldValueInvalid", "Invalid value: " + std::to_string(seconds) + ": " + why,
                   "spec.expirationSeconds"}});
}

std::int64_t expiration_of(bj::object& spec) {
  const bj::value* v = spec.if_contains("expirationSeconds");
  std::int64_t seconds = v && v->is_int64() ? v->get_int64() : 3600;
  if (seconds < kMinExpiration)
    throw invalid_expiration(seconds, "may not specify a duration less than 10 minutes");
  if (seconds > kMaxExpiration)
    throw invalid_expiration(seconds, "may not specify a duration larger than 2^32 seconds");
  spec["expirationSeconds"] = seconds;
  return seconds;
}

std::vector<std::string> audiences_of(bj::object& spec, const TokenIssuer& issuer) {
  std::vector<std::string> out;
  if (const bj::value* a = spec.if_contains("audiences"); a && a->is_array()) {
    for (const bj::value& s : a->get_array()) {
      if (s.is_string()) out.emplace_back(s.get_string());
    }
  }
  if (out.empty()) out = issuer.audiences;
  bj::array json;
  for (const std::string& s : out) json.emplace_back(s);
  spec["audiences"] = std::move(json);
  return out;
}

// The object the token is bound to; its uid is filled in when the reference has none.
void bind(const RestContext& c, bj::object& spec, TokenSubject& subject) {
  bj::value* ref = spec.if_contains("boundObjectRef");
  if (!ref || !ref->is_object()) return;
  bj::object& r = ref->get_object();
  const std::string kind = string_at(r, "kind");
  if (kind != "Pod" && kind != "Secret") {
    throw bad_request("cannot bind token to object of type " + string_at(r, "apiVersion") +
                      ", Kind=" + kind);
  }
  const GroupResource gr{"", kind == "Pod" ? "pods" : "secrets"};
  const std::string name = string_at(r, "name");
  ObjectPtr o = find_object(c.store, builtin("", gr.resource), c.target.ns, name);
  if (!o) throw not_found(gr, name);
  const std::string uid = meta_string(*o, "uid"), wanted = string_at(r, "uid");
  if (!wanted.empty() && wanted != uid) {
    throw conflict({"", kind}, name,
                   "the UID in the bound object reference (" + wanted +
                       ") does not match the UID in record. The object might have been deleted "
                       "and then recreated");
  }
  r["uid"] = uid;
  subject.bound_kind = kind;
  subject.bound = {name, uid};
  if (kind == "Pod") subject.node_name = string_at(*o, "spec.nodeName");
}

kube::http::ServerResponse issue(const RestContext& c, const TokenIssuer& issuer) {
  ObjectPtr sa = find_object(c.store, builtin("", "serviceaccounts"), c.target.ns, c.target.name);
  if (!sa) throw not_found({"", "serviceaccounts"}, c.target.name);
  bj::object body = request_body(c);
  bj::object spec =
      body.contains("spec") && body["spec"].is_object() ? body["spec"].get_object() : bj::object{};
  TokenSubject subject{.ns = c.target.ns,
                       .service_account = {c.target.name, meta_string(*sa, "uid")}};
  TokenGrant grant{.issuer = issuer.issuer,
                   .audiences = audiences_of(spec, issuer),
                   .issued_at = std::chrono::time_point_cast<std::chrono::seconds>(c.now()),
                   .expiration_seconds = expiration_of(spec),
                   .jti = new_uid()};
  bind(c, spec, subject);
  const std::string token = encode_jwt(*issuer.key, token_claims(subject, grant));
  bj::object answer{
      {"kind", "TokenRequest"},
      {"apiVersion", std::string(kGroup) + "/v1"},
      {"metadata", bj::object{{"name", c.target.name},
                              {"namespace", c.target.ns},
                              {"creationTimestamp", kube::format_rfc3339(grant.issued_at)}}},
      {"spec", std::move(spec)},
      {"status",
       bj::object{{"token", token},
                  {"expirationTimestamp",
                   kube::format_rfc3339(grant.issued_at +
                                        std::chrono::seconds(grant.expiration_seconds))}}}};
  return json_response(201, bj::serialize(answer));
}

}  // namespace

SubresourceHandler token_request_handler(TokenIssuer issuer) {
  return [issuer](const RestContext& c) {
    if (c.request.method != "POST") {
      throw method_not_supported({"", "serviceaccounts"},
                                 c.request.method == "GET" ? "get" : "update");
    }
    return issue(c, issuer);
  };
}

}  // namespace tailor::embedded
