#include "embedded/webhooks/review.h"

#include "embedded/storage/json_text.h"
#include "embedded/storage/object_meta.h"
#include "kube/http/base64.h"

namespace tailor::embedded::webhooks {
namespace {

CallFailure invalid_response(const std::string& why) {
  return CallFailure("received invalid webhook response: " + why);
}

StatusError denial(const std::string& webhook_name, const bj::value* status) {
  const bj::object empty;
  const bj::object& s = status && status->is_object() ? status->as_object() : empty;
  const bj::value* code = s.if_contains("code");
  int c = code && code->is_number() ? code->to_number<int>() : 0;
  if (c < 400) c = 400;
  std::string message = string_at(s, "message");
  std::string reason = string_at(s, "reason");
  std::string denied = "admission webhook \"" + webhook_name + "\" denied the request";
  if (!message.empty()) {
    denied += ": " + message;
  } else if (!reason.empty()) {
    denied += ": " + reason;
  } else {
    denied += " without explanation";
  }
  return StatusError(c, reason, denied);
}

bj::value decoded_patch(const bj::object& response) {
  std::string type = string_at(response, "patchType");
  if (type != "JSONPatch") {
    throw invalid_response("unsupported patch type \"" + type + "\"");
  }
  std::string text;
  try {
    text = kube::base64_decode(string_at(response, "patch"));
  } catch (const std::exception& e) {
    throw invalid_response(std::string("patch is not base64: ") + e.what());
  }
  boost::system::error_code ec;
  bj::value ops = parse_json_text(text, ec);
  if (ec || !ops.is_array()) throw invalid_response("patch is not a JSON array");
  return ops;
}

}  // namespace

std::string review_body(const ReviewRequest& r) {
  const Write& w = r.write;
  bj::object gvk{{"group", w.group}, {"version", w.version}, {"kind", r.kind}};
  bj::object gvr{{"group", w.group}, {"version", w.version}, {"resource", w.resource}};
  bj::object request{
      {"uid", r.uid},
      {"kind", gvk},
      {"resource", gvr},
      {"requestKind", gvk},
      {"requestResource", gvr},
      {"name", r.name},
      {"operation", w.operation},
      {"userInfo", bj::object{{"username", "system:admin"},
                              {"groups", bj::array{"system:masters", "system:authenticated"}}}},
      {"object", r.object ? bj::value(*r.object) : bj::value(nullptr)},
      {"oldObject", r.old_object ? bj::value(*r.old_object) : bj::value(nullptr)},
      {"dryRun", r.dry_run},
      {"options", bj::object{{"kind", w.operation == "CREATE" ? "CreateOptions" : "UpdateOptions"},
                             {"apiVersion", "meta.k8s.io/v1"}}}};
  if (!w.subresource.empty()) {
    request["subResource"] = w.subresource;
    request["requestSubResource"] = w.subresource;
  }
  if (!r.ns.empty()) request["namespace"] = r.ns;
  return bj::serialize(bj::object{{"apiVersion", "admission.k8s.io/v1"},
                                  {"kind", "AdmissionReview"},
                                  {"request", std::move(request)}});
}

Verdict read_review_response(const std::string& webhook_name, const std::string& uid,
                             const std::string& body) {
  boost::system::error_code ec;
  bj::value review = parse_json_text(body, ec);
  if (ec || !review.is_object()) throw invalid_response("the body is not a JSON object");
  const bj::value* response = review.as_object().if_contains("response");
  if (!response || !response->is_object()) throw invalid_response("webhook response was absent");
  const bj::object& r = response->as_object();
  if (string_at(r, "uid") != uid) {
    throw invalid_response("expected response.uid=\"" + uid + "\", got \"" + string_at(r, "uid") +
                           "\"");
  }
  Verdict v;
  if (const bj::value* warnings = r.if_contains("warnings"); warnings && warnings->is_array()) {
    for (const bj::value& w : warnings->as_array()) {
      if (w.is_string()) v.warnings.emplace_back(w.as_string());
    }
  }
  const bj::value* allowed = r.if_contains("allowed");
  v.allowed = allowed && allowed->is_bool() && allowed->as_bool();
  if (!v.allowed) {
    v.denial = denial(webhook_name, r.if_contains("status"));
    return v;
  }
  if (r.contains("patch")) v.patch = std::make_shared<const bj::value>(decoded_patch(r));
  return v;
}

}  // namespace tailor::embedded::webhooks
