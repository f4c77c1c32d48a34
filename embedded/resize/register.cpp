// pods/resize: GET, PUT and PATCH served by the generic verbs; the resize strategy and its
// validation run as the first admission step of an Update on the subresource, so that LimitRange,
// ResourceQuota and webhooks see the pod as it will be stored.
#include <boost/json.hpp>

#include "embedded/api/pod_validation.h"
#include "embedded/api/rest.h"
#include "embedded/resize/pod_resize.h"
#include "embedded/server/features.h"

namespace tailor::embedded {
namespace {

bool is_pod_update(const AdmissionRequest& r, std::string_view subresource) {
  return r.resource.group.empty() && r.resource.resource == "pods" &&
         r.operation == AdmissionOperation::Update && r.subresource == subresource &&
         r.old_object != nullptr;
}

void throw_if_invalid(const AdmissionRequest& r, std::vector<FieldCause> errors) {
  if (!errors.empty()) throw invalid("", "Pod", r.name, std::move(errors));
}

// What decoding does on kube-apiserver: a pod's quantities are stored canonical.
void canonicalize_pod(AdmissionRequest& r) {
  if (is_pod_update(r, "") || is_pod_update(r, "resize")) canonicalize_pod_quantities(r.object);
}

void prepare_resize(AdmissionRequest& r) {
  if (!is_pod_update(r, "resize")) return;
  bj::object target = resize_target(r.object, *r.old_object);
  throw_if_invalid(r, validate_pod_resize(target, *r.old_object));
  r.object = std::move(target);
}

void check_pod_update(AdmissionRequest& r) {
  if (!is_pod_update(r, "")) return;
  std::vector<FieldCause> errors = validate_pod_spec(r.object);
  if (errors.empty()) errors = validate_pod_update_resources(r.object, *r.old_object);
  throw_if_invalid(r, std::move(errors));
}

kube::http::ServerResponse serve_resize(const RestContext& c) {
  const std::string& method = c.request.method;
  if (method == "GET") return get_object(c);
  if (method == "PUT") return update_object(c);
  if (method == "PATCH") return patch_object(c);
  throw method_not_supported(c.target.resource->group_resource(), method == "POST"     ? "create"
                                                                  : method == "DELETE" ? "delete"
                                                                                       : method);
}

}  // namespace

void add_pod_resize(ApiExtensions& extensions, ObjectStore&) {
  extensions.mutating.insert(extensions.mutating.begin(), {canonicalize_pod, prepare_resize});
  extensions.validating.push_back(check_pod_update);
  ResourceInfo pods{.version = "v1", .resource = "pods"};
  extensions.handlers[subresource_key(pods, "resize")] = serve_resize;
}

}  // namespace tailor::embedded
