#include "actuator/eligibility.h"

namespace tailor::actuator {
namespace {

Eligibility by_mode(policy::UpdateMode mode) {
  using policy::UpdateMode;
  switch (mode) {
    case UpdateMode::Off:
      return {false, false, "update mode Off: recommendations only"};
    case UpdateMode::Initial:
      return {false, false, "update mode Initial: applied only when pods are created"};
    case UpdateMode::Recreate:
      return {false, true, ""};
    case UpdateMode::InPlaceOrRecreate:
      return {true, true, ""};
    case UpdateMode::InPlace:
      return {true, false, ""};
  }
  return {};
}

}  // namespace

bool is_mirror_pod(const kube::ObjectMeta& meta) {
  if (meta.annotations.contains(kMirrorPodAnnotation)) return true;
  const kube::OwnerReference* owner = kube::controller_of(meta);
  return owner && owner->kind == "Node";
}

Eligibility eligibility(const kube::Pod& pod, policy::UpdateMode mode) {
  return eligibility(pod_facts(pod), mode);
}

Eligibility eligibility(const PodFacts& pod, policy::UpdateMode mode) {
  if (pod.mirror) return {false, false, "static (mirror) pod: owned by its kubelet"};
  if (pod.deleting) return {false, false, "pod is being deleted"};
  if (pod.status->phase != "Running") return {false, false, "pod is not running"};
  // The boost is taken back by its own resize (controller/app/startup_boosts); until then the
  // update rule neither resizes nor evicts the pod (an eviction would only boost it again).
  if (pod.startup_boosted()) {
    return {false, false, "start-up CPU boost: taken back once Ready and its duration passed"};
  }
  Eligibility out = by_mode(mode);
  if (!out.in_place) return out;
  if (pod.spec->windows) {
    out.in_place = false;
    out.reason = "Windows pod: in-place resize is not supported on Windows";
  } else if (pod.spec->resources) {
    out.in_place = false;
    out.reason = "pod-level resources: containers are not resized in place";
  }
  return out;
}

}  // namespace tailor::actuator
