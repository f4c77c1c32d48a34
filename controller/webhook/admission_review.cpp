#include "controller/webhook/admission_review.h"

#include <boost/json.hpp>

#include "kube/http/base64.h"
#include "kube/model/json_value.h"

namespace tailor::controller::webhook {
namespace {

namespace bj = boost::json;

std::string string_at(const bj::object& o, std::string_view key) {
  const bj::value* v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->as_string()) : "";
}

const bj::object& object_at(const bj::object& o, std::string_view key) {
  static const bj::object kEmpty;
  const bj::value* v = o.if_contains(key);
  return v && v->is_object() ? v->as_object() : kEmpty;
}

bj::object parse_object(std::string_view text, const char* what) {
  boost::system::error_code ec;
  bj::value v = kube::json::parse_value(text, ec);
  if (ec == kube::json::number_out_of_range()) {
    throw ReviewError(std::string(what) +
                      " holds a number out of range: " + kube::json::out_of_range_number(text));
  }
  if (ec) throw ReviewError(std::string(what) + " is not valid JSON: " + ec.message());
  if (!v.is_object()) throw ReviewError(std::string(what) + " is not a JSON object");
  return std::move(v.as_object());
}

// The escaped form of a JSON Pointer token (RFC 6901).
std::string pointer_token(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

// Sets the named quantities in `list` ("requests" / "limits"), adding what is missing.
void set_quantities(bj::array& ops, const std::string& base, const bj::object& resources,
                    const char* list, const std::map<std::string, kube::Quantity>& values) {
  if (values.empty()) return;
  const bj::value* existing = resources.if_contains(list);
  std::string path = base + "/" + list;
  if (!existing || !existing->is_object()) {
    bj::object all;
    for (const auto& [name, q] : values) all[name] = q.to_string();
    ops.push_back(bj::object{{"op", "add"}, {"path", path}, {"value", std::move(all)}});
    return;
  }
  for (const auto& [name, q] : values) {
    const bj::value* now = existing->as_object().if_contains(name);
    if (now && now->is_string() && now->as_string() == q.to_string()) continue;
    ops.push_back(bj::object{{"op", now ? "replace" : "add"},
                             {"path", path + "/" + pointer_token(name)},
                             {"value", q.to_string()}});
  }
}

}  // namespace

AdmissionRequest parse_admission_review(std::string_view body) {
  bj::object review = parse_object(body, "the AdmissionReview");
  if (string_at(review, "apiVersion") != "admission.k8s.io/v1" ||
      string_at(review, "kind") != "AdmissionReview") {
    throw ReviewError("expected an admission.k8s.io/v1 AdmissionReview, got apiVersion \"" +
                      string_at(review, "apiVersion") + "\" kind \"" + string_at(review, "kind") +
                      "\"");
  }
  const bj::value* req = review.if_contains("request");
  if (!req || !req->is_object()) throw ReviewError("the AdmissionReview has no request");
  const bj::object& r = req->as_object();
  AdmissionRequest out;
  out.uid = string_at(r, "uid");
  if (out.uid.empty()) throw ReviewError("the AdmissionReview request has no uid");
  out.kind = string_at(object_at(r, "kind"), "kind");
  out.group = string_at(object_at(r, "kind"), "group");
  out.resource = string_at(object_at(r, "resource"), "resource");
  out.sub_resource = string_at(r, "subResource");
  out.ns = string_at(r, "namespace");
  out.name = string_at(r, "name");
  out.operation = string_at(r, "operation");
  const bj::value* dry = r.if_contains("dryRun");
  out.dry_run = dry && dry->is_bool() && dry->as_bool();
  if (const bj::value* o = r.if_contains("object"); o && o->is_object()) {
    out.object_json = bj::serialize(*o);
  }
  return out;
}

std::string admission_review_response(const AdmissionResponse& response) {
  bj::object r{{"uid", response.uid}, {"allowed", response.allowed}};
  if (!response.patch_json.empty()) {
    r["patchType"] = "JSONPatch";
    r["patch"] = kube::base64_encode(response.patch_json);
  }
  if (!response.warnings.empty()) {
    bj::array w;
    for (const std::string& s : response.warnings) w.push_back(bj::string(s));
    r["warnings"] = std::move(w);
  }
  if (!response.allowed) {
    r["status"] = bj::object{{"code", response.denial_code}, {"message", response.denial_message}};
  }
  return bj::serialize(bj::object{{"apiVersion", "admission.k8s.io/v1"},
                                  {"kind", "AdmissionReview"},
                                  {"response", std::move(r)}});
}

std::string container_resources_patch(std::string_view pod_json,
                                      const std::vector<ContainerResources>& containers) {
  bj::object pod = parse_object(pod_json, "the pod");
  const bj::value* list = object_at(pod, "spec").if_contains("containers");
  if (!list || !list->is_array()) throw ReviewError("the pod has no spec.containers");
  bj::array ops;
  bool named = containers.empty();
  const bj::array& cs = list->as_array();
  for (std::size_t i = 0; i < cs.size(); ++i) {
    if (!cs[i].is_object()) continue;
    std::string name = string_at(cs[i].as_object(), "name");
    for (const ContainerResources& want : containers) {
      if (want.name != name) continue;
      named = true;
      std::string base = "/spec/containers/" + std::to_string(i) + "/resources";
      const bj::value* res = cs[i].as_object().if_contains("resources");
      if (!res || !res->is_object()) {
        ops.push_back(bj::object{{"op", "add"}, {"path", base}, {"value", bj::object{}}});
      }
      static const bj::object kNone;
      const bj::object& resources = res && res->is_object() ? res->as_object() : kNone;
      set_quantities(ops, base, resources, "requests", want.requests);
      set_quantities(ops, base, resources, "limits", want.limits);
    }
  }
  if (!named) throw ReviewError("the pod has none of the containers to set");
  return ops.empty() ? "" : bj::serialize(ops);
}

std::string with_annotations(std::string_view patch_json, std::string_view pod_json,
                             const std::vector<std::pair<std::string, std::string>>& annotations) {
  if (annotations.empty()) return std::string(patch_json);
  bj::array ops;
  if (!patch_json.empty()) {
    boost::system::error_code ec;
    bj::value v = kube::json::parse_value(patch_json, ec);
    if (ec || !v.is_array()) throw ReviewError("the patch is not a JSON Patch array");
    ops = std::move(v.as_array());
  }
  const bj::object pod = parse_object(pod_json, "the pod");
  const bj::value* existing = object_at(pod, "metadata").if_contains("annotations");
  if (!existing || !existing->is_object()) {
    bj::object all;
    for (const auto& [key, value] : annotations) all[key] = value;
    ops.push_back(bj::object{{"op", "add"}, {"path", "/metadata/annotations"}, {"value", all}});
  } else {
    for (const auto& [key, value] : annotations) {
      ops.push_back(bj::object{{"op", existing->as_object().contains(key) ? "replace" : "add"},
                               {"path", "/metadata/annotations/" + pointer_token(key)},
                               {"value", value}});
    }
  }
  return bj::serialize(ops);
}

}  // namespace tailor::controller::webhook
