// The controller's admission webhook (controller/webhook/admission_review.h): any request body is
// either an AdmissionReview it answers or refused with ReviewError (a 400). For a pod it would
// resize, the JSON Patch it sends back applies to the pod it was given (the API server refuses
// the whole request otherwise), and sets exactly the resources it names; its answer is JSON.
#include "controller/webhook/admission_review.h"

#include <boost/json.hpp>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "embedded/api/patch.h"
#include "embedded/storage/json_text.h"
#include "embedded/storage/status_error.h"
#include "fuzz/fuzz_check.h"
#include "kube/model/decode.h"

namespace {

namespace bj = boost::json;
namespace webhook = tailor::controller::webhook;
namespace kube = tailor::kube;
using tailor::fuzz::check;

// The resources the controller would set: every container of the pod, a fixed request and limit.
std::vector<webhook::ContainerResources> resize_all(const kube::Pod& pod) {
  std::vector<webhook::ContainerResources> set;
  for (const auto& c : pod.spec.containers) {
    set.push_back({.name = c.name,
                   .requests = {{"cpu", kube::Quantity::parse("250m")}},
                   .limits = {{"memory", kube::Quantity::parse("64Mi")}}});
  }
  return set;
}

void check_patch(const std::string& object_json, const std::string& patch_json) {
  const bj::value object = tailor::embedded::parse_json_text(object_json);
  const bj::value patch = tailor::embedded::parse_json_text(patch_json);
  check(patch.is_array(), "the webhook's patch is a JSON Patch", patch_json);
  bj::value patched;
  try {
    patched = tailor::embedded::json_patch(object, patch);
  } catch (const tailor::embedded::StatusError& e) {
    tailor::fuzz::invariant_broken("the webhook's patch applies to the pod it was given",
                                   patch_json);
  }
  const kube::Pod after = kube::decode<kube::Pod>(kube::JsonInput(bj::serialize(patched)));
  for (const auto& c : after.spec.containers) {
    const auto cpu = c.resources.requests.find("cpu");
    check(cpu != c.resources.requests.end() && cpu->second == kube::Quantity::parse("250m"),
          "the patched pod requests what the webhook set", patch_json);
  }
}

void answer(const webhook::AdmissionRequest& request) {
  webhook::AdmissionResponse response{.uid = request.uid};
  if (request.kind == "Pod" && !request.object_json.empty()) {
    kube::Pod pod;
    try {
      pod = kube::decode<kube::Pod>(kube::JsonInput(request.object_json));
    } catch (const kube::DecodeError&) {
      return;  // the controller answers "allowed, unchanged" to a pod it cannot read
    }
    try {
      response.patch_json =
          webhook::container_resources_patch(request.object_json, resize_all(pod));
    } catch (const webhook::ReviewError&) {
      check(pod.spec.containers.empty(), "a pod with containers gets its patch");
    }
    if (!response.patch_json.empty()) check_patch(request.object_json, response.patch_json);
  }
  const std::string review = webhook::admission_review_response(response);
  check(tailor::embedded::parse_json_text(review).is_object(), "the answer is JSON", review);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  webhook::AdmissionRequest request;
  try {
    request = webhook::parse_admission_review(body);
  } catch (const webhook::ReviewError& e) {
    check(std::string_view(e.what()).size() > 0, "a refusal says why");
    return 0;
  }
  answer(request);
  return 0;
}
