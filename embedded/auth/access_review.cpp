#include "embedded/auth/access_review.h"

#include <boost/json.hpp>
#include <string>

#include "embedded/api/rest.h"
#include "embedded/storage/object_meta.h"

namespace tailor::embedded {
namespace {

constexpr const char* kGroup = "authorization.k8s.io";

bool given(const bj::object& spec, std::string_view field) {
  const bj::value* v = spec.if_contains(field);
  return v && !v->is_null();
}

const bj::object& spec_of(const bj::object& review) {
  static const bj::object empty;
  const bj::value* spec = review.if_contains("spec");
  return spec && spec->is_object() ? spec->get_object() : empty;
}

void validate_spec(const bj::object& review, const std::string& kind) {
  const bj::object& s = spec_of(review);
  const bool resource = given(s, "resourceAttributes");
  const bool non_resource = given(s, "nonResourceAttributes");
  if (resource && non_resource) {
    throw invalid(kGroup, kind, "",
                  {{"FieldValueInvalid",
                    "Invalid value: " + bj::serialize(s.at("nonResourceAttributes")) +
                        ": cannot be specified in combination with resourceAttributes",
                    "spec.nonResourceAttributes"}});
  }
  if (!resource && !non_resource) {
    throw invalid(kGroup, kind, "",
                  {{"FieldValueInvalid",
                    "Invalid value: null: exactly one of nonResourceAttributes or "
                    "resourceAttributes must be specified",
                    "spec.resourceAttributes"}});
  }
}

// What the spec asks, as the authorizer reads a request.
RequestAttributes attributes_of(const bj::object& spec, const UserInfo& user) {
  RequestAttributes a{.user = user};
  if (given(spec, "resourceAttributes")) {
    const bj::value& r = spec.at("resourceAttributes");
    a.resource_request = true;
    a.verb = string_at(r, "verb");
    a.api_group = string_at(r, "group");
    a.api_version = string_at(r, "version");
    a.resource = string_at(r, "resource");
    a.subresource = string_at(r, "subresource");
    a.name = string_at(r, "name");
    a.ns = string_at(r, "namespace");
    return a;
  }
  const bj::value& n = spec.at("nonResourceAttributes");
  a.path = string_at(n, "path");
  a.verb = string_at(n, "verb");
  return a;
}

bj::object answered(bj::object review, const std::string& kind, const RequestAttributes& asked,
                    const Authorizer& authorize) {
  review["kind"] = kind;
  review["apiVersion"] = std::string(kGroup) + "/v1";
  bj::value& meta = review["metadata"];
  if (!meta.is_object()) meta = bj::object{};
  if (!meta.get_object().contains("creationTimestamp"))
    meta.get_object()["creationTimestamp"] = nullptr;
  AuthorizationDecision d = authorize ? authorize(asked) : AuthorizationDecision{true, ""};
  bj::object status{{"allowed", d.allowed}};
  if (!d.reason.empty()) status["reason"] = d.reason;
  review["status"] = std::move(status);
  return review;
}

std::string verb_of(const RestContext& c) {
  const std::string& m = c.request.method;
  if (m == "GET") return c.target.name.empty() ? "list" : "get";
  if (m == "DELETE") return c.target.name.empty() ? "deletecollection" : "delete";
  if (m == "PUT") return "update";
  if (m == "PATCH") return "patch";
  return m;
}

}  // namespace

bj::object review_body(const RestContext& c) {
  const ResourceInfo& r = *c.target.resource;
  if (c.request.method != "POST" || !c.target.name.empty()) {
    throw method_not_supported(r.group_resource(), verb_of(c));
  }
  bj::object review = body_object(c);
  const std::string api_version = review.contains("apiVersion") && review["apiVersion"].is_string()
                                      ? std::string(review["apiVersion"].get_string())
                                      : r.api_version();
  if (api_version != r.api_version()) {
    throw bad_request("the API version in the data (" + api_version +
                      ") does not match the expected API version (" + r.api_version() + ")");
  }
  return review;
}

bj::object review_self_access(bj::object review, const UserInfo& user,
                              const Authorizer& authorize) {
  validate_spec(review, "SelfSubjectAccessReview");
  RequestAttributes asked = attributes_of(spec_of(review), user);
  return answered(std::move(review), "SelfSubjectAccessReview", asked, authorize);
}

bj::object review_subject_access(bj::object review, const Authorizer& authorize) {
  validate_spec(review, "SubjectAccessReview");
  const bj::object& spec = spec_of(review);
  UserInfo user{.name = string_at(spec, "user"),
                .uid = string_at(spec, "uid"),
                .groups = strings_of(spec, "groups")};
  if (user.name.empty() && user.groups.empty()) {
    throw invalid(
        kGroup, "SubjectAccessReview", "",
        {{"FieldValueInvalid",
          "Invalid value: \"\": at least one of user or group must be specified", "spec.user"}});
  }
  if (const bj::value* extra = spec.if_contains("extra"); extra && extra->is_object()) {
    for (const auto& [key, values] : extra->get_object()) {
      if (values.is_array()) user.extra[std::string(key)] = strings_of(extra->get_object(), key);
    }
  }
  RequestAttributes asked = attributes_of(spec, user);
  return answered(std::move(review), "SubjectAccessReview", asked, authorize);
}

kube::http::ServerResponse serve_self_subject_access_review(const RestContext& c) {
  bj::object review = review_self_access(review_body(c), c.user, c.options.extensions.authorize);
  return json_response(201, bj::serialize(review));
}

bj::object user_info_json(const UserInfo& user) {
  bj::object info{{"username", user.name}};
  if (!user.uid.empty()) info["uid"] = user.uid;
  bj::array groups;
  for (const std::string& g : user.groups) groups.emplace_back(g);
  if (!groups.empty()) info["groups"] = std::move(groups);
  bj::object extra;
  for (const auto& [key, values] : user.extra) {
    bj::array v;
    for (const std::string& s : values) v.emplace_back(s);
    extra[key] = std::move(v);
  }
  if (!extra.empty()) info["extra"] = std::move(extra);
  return info;
}

kube::http::ServerResponse serve_self_subject_review(const RestContext& c) {
  review_body(c);  // the method and apiVersion checked; the body asks nothing more
  bj::object answer{{"kind", "SelfSubjectReview"},
                    {"apiVersion", "authentication.k8s.io/v1"},
                    {"metadata", bj::object{{"creationTimestamp", kube::format_rfc3339(c.now())}}},
                    {"status", bj::object{{"userInfo", user_info_json(c.user)}}}};
  return json_response(201, bj::serialize(answer));
}

kube::http::ServerResponse serve_subject_access_review(const RestContext& c) {
  bj::object review = review_subject_access(review_body(c), c.options.extensions.authorize);
  return json_response(201, bj::serialize(review));
}

}  // namespace tailor::embedded
