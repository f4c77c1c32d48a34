#include "embedded/protobuf/access_review.h"

#include <boost/json.hpp>
#include <string>

#include "embedded/api/rest.h"

namespace tailor::embedded {
namespace {

constexpr const char* kGroup = "authorization.k8s.io";
constexpr const char* kKind = "SelfSubjectAccessReview";
constexpr const char* kAllowedReason = "tailor-cluster: its single administrator may do everything";

bool given(const bj::object& spec, std::string_view field) {
  const bj::value* v = spec.if_contains(field);
  return v && !v->is_null();
}

void validate_spec(const bj::object& review) {
  const bj::value* spec = review.if_contains("spec");
  bj::object empty;
  const bj::object& s = spec && spec->is_object() ? spec->get_object() : empty;
  const bool resource = given(s, "resourceAttributes");
  const bool non_resource = given(s, "nonResourceAttributes");
  if (resource && non_resource) {
    throw invalid(kGroup, kKind, "",
                  {{"FieldValueInvalid",
                    "Invalid value: " + bj::serialize(s.at("nonResourceAttributes")) +
                        ": cannot be specified in combination with resourceAttributes",
                    "spec.nonResourceAttributes"}});
  }
  if (!resource && !non_resource) {
    throw invalid(kGroup, kKind, "",
                  {{"FieldValueInvalid",
                    "Invalid value: null: exactly one of nonResourceAttributes or "
                    "resourceAttributes must be specified",
                    "spec.resourceAttributes"}});
  }
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

bj::object review_self_access(bj::object review) {
  validate_spec(review);
  review["kind"] = kKind;
  review["apiVersion"] = std::string(kGroup) + "/v1";
  bj::value& meta = review["metadata"];
  if (!meta.is_object()) meta = bj::object{};
  if (!meta.get_object().contains("creationTimestamp"))
    meta.get_object()["creationTimestamp"] = nullptr;
  review["status"] = bj::object{{"allowed", true}, {"reason", kAllowedReason}};
  return review;
}

kube::http::ServerResponse serve_self_subject_access_review(const RestContext& c) {
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
  return json_response(201, bj::serialize(review_self_access(std::move(review))));
}

}  // namespace tailor::embedded
