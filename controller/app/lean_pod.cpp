#include "controller/app/lean_pod.h"

#include <algorithm>
#include <string_view>

#include "actuator/eligibility.h"

namespace tailor::controller {
namespace {

void release(std::string& s) { std::string().swap(s); }

// The conditions reconcile and the actuator read (readiness for disruption limits, the resize
// conditions for outcomes); the others are a few hundred bytes each per pod.
bool read_by_controller(const kube::PodCondition& c) {
  return c.type == "Ready" || c.type == kube::kPodResizePending ||
         c.type == kube::kPodResizeInProgress;
}

// Only an OOM kill's reason and time are read (priority of memory growth); a current state is
// never read.
void lean(kube::ContainerStatus& s) {
  release(s.image);
  release(s.image_id);
  release(s.container_id);
  s.state = {};
  auto& terminated = s.last_state.terminated;
  if (terminated && terminated->reason == "OOMKilled") {
    s.last_state = {.terminated = kube::ContainerStateTerminated{
                        .reason = std::move(terminated->reason),
                        .finished_at = std::move(terminated->finished_at)}};
  } else {
    s.last_state = {};
  }
}

}  // namespace

kube::Pod lean_pod(kube::Pod pod) {
  release(pod.metadata.generate_name);
  std::erase_if(pod.metadata.annotations,
                [](const auto& a) { return a.first != actuator::kMirrorPodAnnotation; });
  pod.metadata.finalizers.clear();
  pod.metadata.finalizers.shrink_to_fit();
  for (auto* containers : {&pod.spec.containers, &pod.spec.init_containers}) {
    for (kube::Container& c : *containers) {
      release(c.image);
      c.resize_policy.shrink_to_fit();
    }
    containers->shrink_to_fit();
  }
  for (auto* statuses : {&pod.status.container_statuses, &pod.status.init_container_statuses}) {
    for (kube::ContainerStatus& s : *statuses) lean(s);
    statuses->shrink_to_fit();
  }
  std::erase_if(pod.status.conditions,
                [](const kube::PodCondition& c) { return !read_by_controller(c); });
  for (kube::PodCondition& c : pod.status.conditions) release(c.last_probe_time);
  pod.status.conditions.shrink_to_fit();
  release(pod.status.host_ip);
  release(pod.status.pod_ip);
  release(pod.status.message);
  return pod;
}

}  // namespace tailor::controller
