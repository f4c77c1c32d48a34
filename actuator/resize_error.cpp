#include "actuator/resize_error.h"

namespace tailor::actuator {
namespace {

bool has(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

}  // namespace

std::string_view to_string(ResizeErrorAction action) {
  switch (action) {
    case ResizeErrorAction::Recreate:
      return "Recreate";
    case ResizeErrorAction::QuotaExceeded:
      return "QuotaExceeded";
    case ResizeErrorAction::Rejected:
      return "Rejected";
    case ResizeErrorAction::Forbidden:
      return "Forbidden";
    case ResizeErrorAction::RetryNow:
      return "RetryNow";
    case ResizeErrorAction::RetryLater:
      return "RetryLater";
    case ResizeErrorAction::PodGone:
      return "PodGone";
  }
  return "";
}

ResizeErrorAction classify_resize_error(int code, std::string_view message) {
  switch (code) {
    case 404:
      // A missing pod reads `pods "web-1" not found`; a server without the subresource answers
      // "the server could not find the requested resource".
      return has(message, "pods \"") && has(message, "not found") ? ResizeErrorAction::PodGone
                                                                  : ResizeErrorAction::Recreate;
    case 405:
      return ResizeErrorAction::Recreate;
    case 403:
      // kube-apiserver's authorizer wording (responsewriters.forbiddenMessage).
      if (has(message, "is forbidden: User \"") && has(message, "\" cannot ")) {
        return ResizeErrorAction::Forbidden;
      }
      return has(message, "exceeded quota") ? ResizeErrorAction::QuotaExceeded
                                            : ResizeErrorAction::Rejected;
    case 422:
      return has(message, "without support for resize") ? ResizeErrorAction::Recreate
                                                        : ResizeErrorAction::Rejected;
    case 409:
      return ResizeErrorAction::RetryNow;
    case 400:
      return ResizeErrorAction::Rejected;
    default:
      return ResizeErrorAction::RetryLater;
  }
}

}  // namespace tailor::actuator

namespace tailor::actuator {

std::string_view to_string(EvictionResult result) {
  switch (result) {
    case EvictionResult::Evicted:
      return "Evicted";
    case EvictionResult::Blocked:
      return "Blocked";
    case EvictionResult::Gone:
      return "Gone";
    case EvictionResult::RetryLater:
      return "RetryLater";
  }
  return "";
}

EvictionResult classify_eviction(int code) {
  if (code == 200 || code == 201) return EvictionResult::Evicted;
  if (code == 429) return EvictionResult::Blocked;
  if (code == 404) return EvictionResult::Gone;
  return EvictionResult::RetryLater;
}

}  // namespace tailor::actuator
