// pods/binding and the scale subresource of Deployments, ReplicaSets and StatefulSets.
#include <boost/json.hpp>

#include "embedded/api/patch.h"
#include "embedded/api/rest.h"
#include "embedded/controllers/api_writes.h"
#include "embedded/controllers/handlers.h"
#include "embedded/controllers/loops.h"
#include "embedded/controllers/objects.h"
#include "embedded/storage/json_text.h"

namespace tailor::embedded {
namespace {

bj::object parse_body(const RestContext& c, const char* what) {
  boost::system::error_code ec;
  bj::value body = parse_json_text(c.request.body, ec);
  if (ec || !body.is_object()) {
    throw bad_request(std::string("the body of the request must be a ") + what + " object");
  }
  return std::move(body.as_object());
}

kube::http::ServerResponse bind(const RestContext& c) {
  if (c.request.method != "POST") {
    throw method_not_supported({"", "pods/binding"}, c.request.method);
  }
  bj::object binding = parse_body(c, "Binding");
  std::string node = string_at(binding, "target.name");
  if (node.empty()) {
    throw invalid("", "Binding", c.target.name,
                  {{"FieldValueRequired", "Required value", "target.name"}});
  }
  std::string name = meta_string(binding, "name");
  if (!name.empty() && name != c.target.name) {
    throw bad_request("name in URL does not match name in Binding object");
  }
  if (!c.request.query_param("dryRun")) {
    bind_pod(c.store, c.target.ns, c.target.name, node, meta_string(binding, "uid"));
  }
  bj::object status{{"kind", "Status"},
                    {"apiVersion", "v1"},
                    {"metadata", bj::object{}},
                    {"status", "Success"},
                    {"code", 201}};
  return json_response(201, bj::serialize(status));
}

bj::object scale_of(const bj::object& workload) {
  const bj::value* selector = find_path(workload, "spec.selector");
  return {
      {"kind", "Scale"},
      {"apiVersion", "autoscaling/v1"},
      {"metadata", bj::object{{"name", meta_string(workload, "name")},
                              {"namespace", meta_string(workload, "namespace")},
                              {"uid", meta_string(workload, "uid")},
                              {"resourceVersion", meta_string(workload, "resourceVersion")},
                              {"creationTimestamp", meta_string(workload, "creationTimestamp")}}},
      {"spec", bj::object{{"replicas", int_at(workload, "spec.replicas", 1)}}},
      {"status", bj::object{{"replicas", int_at(workload, "status.replicas", 0)},
                            {"selector", selector ? label_selector_string(*selector) : ""}}}};
}

std::string media_type(std::string_view content_type) {
  std::string t(content_type.substr(0, content_type.find(';')));
  while (!t.empty() && t.back() == ' ') t.pop_back();
  return t;
}

// The Scale a PUT or PATCH asks for, given the current one.
bj::object wanted_scale(const RestContext& c, const bj::object& current) {
  boost::system::error_code ec;
  bj::value body = parse_json_text(c.request.body, ec);
  if (ec) throw bad_request("the body of the request is not valid JSON: " + ec.message());
  if (c.request.method == "PUT") {
    if (!body.is_object()) throw bad_request("the body of the request must be a Scale object");
    return std::move(body.as_object());
  }
  std::string type = media_type(c.request.header("Content-Type"));
  bj::value result;
  if (type == "application/json-patch+json") {
    result = json_patch(current, body);
  } else if (type == "application/strategic-merge-patch+json") {
    result = strategic_merge_patch(current, body);
  } else if (type == "application/merge-patch+json" || type == "application/apply-patch+yaml") {
    result = merge_patch(current, body);
  } else {
    throw unsupported_media_type(type);
  }
  if (!result.is_object()) throw bad_request("the patch did not produce an object");
  return std::move(result.as_object());
}

std::int64_t replicas_of(const bj::object& scale, const std::string& name) {
  const bj::value* r = find_path(scale, "spec.replicas");
  if (!r) return 0;  // as Go decodes a Scale without spec.replicas
  if (!r->is_int64() || r->as_int64() < 0) {
    std::string shown = r->is_int64() ? std::to_string(r->as_int64()) : bj::serialize(*r);
    throw invalid(
        "autoscaling", "Scale", name,
        {{"FieldValueInvalid", "Invalid value: " + shown + ": must be greater than or equal to 0",
          "spec.replicas"}});
  }
  return r->as_int64();
}

kube::http::ServerResponse scale(const RestContext& c) {
  const ResourceInfo& r = *c.target.resource;
  const std::string& m = c.request.method;
  if (m == "GET")
    return json_response(200, bj::serialize(scale_of(*c.store.get(r, c.target.ns, c.target.name))));
  if (m != "PUT" && m != "PATCH") {
    throw method_not_supported({r.group, r.resource + "/scale"}, m);
  }
  ObjectPtr updated = c.store.modify(r, c.target.ns, c.target.name, [&](const bj::object& current) {
    bj::object wanted = wanted_scale(c, scale_of(current));
    std::string rv = meta_string(wanted, "resourceVersion");
    if (!rv.empty() && rv != meta_string(current, "resourceVersion")) {
      throw conflict(r.group_resource(), c.target.name, kObjectModified);
    }
    bj::object next = current;
    next["spec"].as_object()["replicas"] = replicas_of(wanted, c.target.name);
    return next;
  });
  return json_response(200, bj::serialize(scale_of(*updated)));
}

}  // namespace

SubresourceHandler binding_handler(ObjectStore&) { return bind; }
SubresourceHandler scale_handler(ObjectStore&) { return scale; }

}  // namespace tailor::embedded
