// Decoding VerticalScalingPolicy and VerticalPodAutoscaler JSON (simdjson, as the kube model's
// decoders: unknown fields skipped, null = absent, errors carry the JSON path).
//
// The controller must never stop on a bad object: decode_* return the error as text next to
// whatever metadata could be read, so the object can get a ConfigInvalid condition.
#pragma once

#include <string>
#include <string_view>

#include "policy/types.h"

namespace tailor::policy {

template <class T>
struct Decoded {
  T object{};
  // "" when the whole object decoded; else
  // "spec.resourcePolicy.containerPolicies[0].minAllowed.cpu: quantities must match ..." (the
  // metadata is still filled in when it was readable).
  std::string error{};
  bool ok() const { return error.empty(); }
};

Decoded<VerticalScalingPolicy> decode_vertical_scaling_policy(std::string_view json);
Decoded<VerticalPodAutoscaler> decode_vertical_pod_autoscaler(std::string_view json);

// Strict forms: throw kube::DecodeError (message starts with the JSON path).
VerticalScalingPolicy decode_vertical_scaling_policy_or_throw(std::string_view json);
VerticalPodAutoscaler decode_vertical_pod_autoscaler_or_throw(std::string_view json);

}  // namespace tailor::policy
