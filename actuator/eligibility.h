// Whether, and how, a running pod may be changed under its policy's update mode.
#pragma once

#include <string>

#include "actuator/pod_facts.h"
#include "kube/model/pod.h"
#include "policy/effective.h"

namespace tailor::actuator {

struct Eligibility {
  bool in_place = false;  // may be resized through pods/{name}/resize
  bool recreate = false;  // may be evicted (the webhook sizes the replacement)
  std::string reason{};   // why a way is closed, when one is
  bool any() const { return in_place || recreate; }
};

// Static/mirror pods: neither (the kubelet owns them). Windows pods and pods with pod-level
// resources: never in place. Pods not running, or being deleted: neither.
Eligibility eligibility(const PodFacts& pod, policy::UpdateMode mode);
Eligibility eligibility(const kube::Pod& pod, policy::UpdateMode mode);

// The annotation the kubelet puts on the API's copy of a static pod.
inline constexpr std::string_view kMirrorPodAnnotation = "kubernetes.io/config.mirror";

bool is_mirror_pod(const kube::ObjectMeta& meta);

}  // namespace tailor::actuator
