// resizePolicy RestartContainer in the embedded runtime: the container's newest attempt is
// stopped when it runs, and the attempt after it started with the new allocation (restartCount
// + 1). Unlike a restart by restartPolicy, a failure is thrown: the resize path reports it.
#pragma once

#include <cstdint>
#include <string>

#include "kube/model/pod.h"
#include "node-agent/cri/cri_client.h"
#include "node-agent/runtime/pod_runtime.h"
#include "node-agent/runtime/pod_runtime_records.h"
#include "node-agent/runtime/pod_runtime_start.h"

namespace tailor::node::runtime {

// The spec container `name`; invalid_argument when the pod has none.
const kube::Container& spec_container(const kube::Pod& pod, const std::string& name);

// The run spec of the last sync: what a restart for a resize needs beyond the Pod model;
// runtime_error when this runtime never synced the pod.
RuntimePod runtime_pod(const PodRecord& rec, const kube::Pod& pod);

class ResizeRestart {
 public:
  // Both must outlive this.
  ResizeRestart(cri::RuntimeService& runtime, ContainerStarter& starter);

  // Stops the newest attempt of `name` when it runs.
  void stop_running(const PodRecord& rec, const kube::Pod& pod, const std::string& name,
                    std::int64_t grace);
  // Starts the attempt after the newest one with `allocated`; throws when it cannot start.
  void start_next(PodRecord& rec, const RuntimePod& pod, const std::string& name,
                  const cri::ResourceAmounts& allocated);

 private:
  cri::RuntimeService& runtime_;
  ContainerStarter& starter_;
};

}  // namespace tailor::node::runtime
