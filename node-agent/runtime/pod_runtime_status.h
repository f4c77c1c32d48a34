// The part of a pod's status the kubelet owns, computed as the kubelet computes it from what the
// runtime reports (pure), and the strategic merge patch that writes it. Conditions merge by type
// (PodResize* are never named). containerStatuses is atomic in the API, so the patch carries the
// whole list with allocatedResources and resources, which the resize status writer owns, copied
// from the pod as last read, and that read's resourceVersion as a precondition.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "kube/model/pod.h"
#include "node-agent/cri/cri_client.h"

namespace tailor::node::runtime {

// What the runtime shows of one spec container.
struct ObservedContainer {
  std::string name{};
  std::string image{};                             // as in the spec
  std::optional<cri::ContainerStatus> current{};   // latest attempt, when one was created
  std::optional<cri::ContainerStatus> previous{};  // the attempt before it (lastState)
  // Set while no container runs for it: "ContainerCreating", "ErrImagePull",
  // "ImagePullBackOff", "CreateContainerError", "CrashLoopBackOff".
  std::string waiting_reason{};
  std::string waiting_message{};
  // The readiness probe's verdict on the running attempt; nullopt: no readiness probe (ready
  // while running).
  std::optional<bool> probe_ready{};
};

// The kubelet's container state from a CRI status: running, terminated (exit code, reason from
// the runtime, e.g. "OOMKilled"; "Completed"/"Error" when it gives none) or waiting.
tailor::kube::ContainerState api_state(const cri::ContainerStatus& status);

// containerStatuses[] entry: state, lastState, ready (running, and the readiness probe passed),
// started,
// restartCount (= the latest attempt), containerID ("containerd://<id>"), image, imageID.
tailor::kube::ContainerStatus api_container_status(const ObservedContainer& observed,
                                                   const std::string& runtime_name);

// The kubelet's getPhase over the container statuses and the restart policy.
std::string pod_phase(const kube::PodSpec& spec,
                      const std::vector<tailor::kube::ContainerStatus>& statuses);

struct RuntimeStatusInput {
  std::string host_ip{};
  std::string pod_ip{};      // the sandbox's; "" while it has none (left out of the status)
  std::string start_time{};  // RFC 3339, when the agent first saw the pod
  std::string now{};         // RFC 3339, for condition transitions
  std::string runtime_name = "containerd";
};

// phase, conditions (PodScheduled, Initialized, ContainersReady, Ready; lastTransitionTime kept
// from `pod.status` while a status does not change), containerStatuses, hostIP, podIP, startTime.
kube::PodStatus runtime_status(const kube::Pod& pod, const std::vector<ObservedContainer>& observed,
                               const RuntimeStatusInput& input);

// {"status": {...}} with only the fields above; states name their other members as null so a
// merge replaces the state instead of adding to it. With `current` (the pod as read), each
// container status also carries current's allocatedResources and resources for that container,
// and metadata.resourceVersion is set to `resource_version`.
std::string runtime_status_patch(const kube::PodStatus& status,
                                 const kube::PodStatus* current = nullptr,
                                 const std::string& resource_version = "");

}  // namespace tailor::node::runtime
