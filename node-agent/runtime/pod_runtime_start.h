// Starting a pod's containers in the embedded runtime, as the kubelet's pod workers do: the image
// resolved locally only (a missing image is a pull failure, never a pull), the container created
// in the pod's sandbox with the resources the node allocated and the securityContext's uid and
// gid (runAsNonRoot checked first, as the kubelet does), then started; older dead attempts
// removed (the kubelet keeps one for lastState). Failures are not thrown: they become the
// container's waiting reason and message, which the pod status reports.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "kube/model/pod.h"
#include "node-agent/cri/cri_client.h"
#include "node-agent/runtime/pod_runtime.h"
#include "node-agent/runtime/pod_runtime_records.h"
#include "node-agent/runtime/pod_runtime_status.h"

namespace tailor::node::runtime {

// A spec container's attempts in the runtime, newest first.
using Attempts = std::vector<cri::ContainerSummary>;

// The containers of sandbox `sandbox_id` (in `state` when given).
cri::ContainerFilter in_sandbox(const std::string& sandbox_id,
                                std::optional<cri::ContainerState> state = std::nullopt);
// The containers of sandbox `sandbox_id`, by spec container name.
std::map<std::string, Attempts> attempts_in(cri::RuntimeService& runtime,
                                            const std::string& sandbox_id);

class ContainerStarter {
 public:
  // Both must outlive this.
  ContainerStarter(cri::RuntimeService& runtime, cri::ImageService& images,
                   const PodRuntimeOptions& options);

  // Creates and starts attempt `attempt`; fills `observed` with the new container's status or
  // with why it could not start. Attempts older than the one before are removed (the kubelet
  // keeps one dead container for lastState).
  void start_attempt(PodRecord& rec, const RuntimePod& pod, const kube::Container& container,
                     std::uint32_t attempt, const cri::ResourceAmounts& amounts,
                     const Attempts& attempts, ObservedContainer& observed);

  // Starts a container the runtime holds as created; a failure is RunContainerError.
  void start_created(const std::string& id, ObservedContainer& observed);

  // Stops container `id`, whose state the runtime lost, before its next attempt starts; a
  // failure is logged and the restart goes on (the kubelet's order).
  void stop_lost(const std::string& id, std::int64_t grace_seconds);

  // The runtime's status of container `id`; an exited attempt's is remembered in `rec`.
  cri::ContainerStatus status_of(PodRecord& rec, const std::string& id);

 private:
  // The container's image as the runtime has it; nullopt (ErrImagePull, ImagePullBackOff in
  // `observed`) when the node does not have it.
  std::optional<cri::ImageInfo> resolve_image(PodRecord& rec, const kube::Container& container,
                                              ObservedContainer& observed);
  // False (CreateContainerConfigError in `observed`) when runAsNonRoot forbids running it.
  bool may_run(const RuntimePod& pod, const kube::Container& container, const cri::ImageInfo& image,
               ObservedContainer& observed);
  // The new container's id; nullopt (CreateContainerError in `observed`) when it was not made.
  std::optional<std::string> create(PodRecord& rec, const RuntimePod& pod,
                                    const kube::Container& container, std::uint32_t attempt,
                                    const std::string& image_id,
                                    const cri::ResourceAmounts& amounts,
                                    ObservedContainer& observed);
  void remove_older(PodRecord& rec, const kube::Pod& pod, const Attempts& attempts,
                    std::uint32_t attempt);

  cri::RuntimeService& runtime_;
  cri::ImageService& images_;
  const PodRuntimeOptions& options_;
};

}  // namespace tailor::node::runtime
