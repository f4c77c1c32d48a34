// What a failed PATCH of pods/{name}/resize means for the pod.
#pragma once

#include <string>
#include <string_view>

namespace tailor::actuator {

enum class ResizeErrorAction {
  Recreate,       // resize not supported (404/405 on /resize, "without support for resize")
  QuotaExceeded,  // 403 "exceeded quota": condition and event, retry later, never recreate
  Rejected,       // other 422 / 403: the patch itself is wrong; condition, wait for a new one
  // 403 from the authorizer ("User \"...\" cannot patch resource \"pods/resize\" ..."): the
  // controller lacks a permission, not the patch a fix; event, error log and metric, and sent
  // again next pass, so a restored role takes effect without waiting for a new recommendation.
  Forbidden,
  RetryNow,    // 409 Conflict: re-read the pod and rebuild the patch
  RetryLater,  // 429, 5xx, transport errors
  PodGone,     // 404 for the pod itself: forget it
};
std::string_view to_string(ResizeErrorAction action);

// `code` is the HTTP status (0 for a transport error); `message` is the Status message.
ResizeErrorAction classify_resize_error(int code, std::string_view message);

}  // namespace tailor::actuator

namespace tailor::actuator {

enum class EvictionResult {
  Evicted,     // 200/201: the replacement comes up right-sized through the webhook
  Blocked,     // 429: a PodDisruptionBudget forbids it now; retry later
  Gone,        // 404: the pod is already gone
  RetryLater,  // anything else (500 "more than one PodDisruptionBudget", transport errors)
};
std::string_view to_string(EvictionResult result);

// The answer to POST pods/{name}/eviction.
EvictionResult classify_eviction(int code);

}  // namespace tailor::actuator
