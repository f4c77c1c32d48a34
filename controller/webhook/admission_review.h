// admission.k8s.io/v1 AdmissionReview, as the API server sends it to a mutating webhook and
// expects it back. Pure: JSON in, JSON out.
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kube/model/quantity.h"

namespace tailor::controller::webhook {

// A review body the webhook cannot answer (not JSON, not an AdmissionReview v1, no request).
class ReviewError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

struct AdmissionRequest {
  std::string uid;
  std::string kind;      // request.kind.kind, "Pod"
  std::string group;     // request.kind.group, "" for core
  std::string resource;  // request.resource.resource, "pods"
  std::string sub_resource;
  std::string ns;
  std::string name;
  std::string operation;  // CREATE, UPDATE, DELETE, CONNECT
  bool dry_run = false;
  std::string object_json;  // request.object, serialized; "" when absent
};

AdmissionRequest parse_admission_review(std::string_view body);

struct AdmissionResponse {
  std::string uid;
  bool allowed = true;
  std::string patch_json{};  // a JSON Patch array; "" : no change
  std::vector<std::string> warnings{};
  std::string denial_message{};  // with allowed == false
  int denial_code = 403;
};

// The AdmissionReview v1 answer (patch base64-encoded, patchType JSONPatch).
std::string admission_review_response(const AdmissionResponse& response);

// What the webhook sets on one container: the listed resource names are replaced, others kept.
struct ContainerResources {
  std::string name;
  std::map<std::string, kube::Quantity> requests{};
  std::map<std::string, kube::Quantity> limits{};
};

// A JSON Patch that sets these containers' requests and limits in the pod (request.object);
// containers not named are untouched, as are resource names not given. "" when nothing changes.
// Throws ReviewError when the pod has no spec.containers or names none of them.
std::string container_resources_patch(std::string_view pod_json,
                                      const std::vector<ContainerResources>& containers);

// `patch_json` (a JSON Patch array, or "" for none) with ops that set these annotations on the
// pod (request.object), creating metadata.annotations when it has none. Throws ReviewError when
// either is not what it should be.
std::string with_annotations(std::string_view patch_json, std::string_view pod_json,
                             const std::vector<std::pair<std::string, std::string>>& annotations);

}  // namespace tailor::controller::webhook
