// Writing the part of a pod's status the kubelet owns (see pod_runtime_status.h) after a sync:
// only when it changed since the last write, and under the resourceVersion of the pod as read, so
// the resize status writer's fields, copied from that read, are never clobbered; a conflict
// means the pod changed since, so it is read again and the patch rebuilt.
#pragma once

#include <vector>

#include "kube/model/pod.h"
#include "node-agent/runtime/pod_runtime.h"
#include "node-agent/runtime/pod_runtime_records.h"
#include "node-agent/runtime/pod_runtime_status.h"

namespace tailor::node::runtime {

class RuntimeStatusWriter {
 public:
  // Both must outlive this.
  RuntimeStatusWriter(PodApi& api, const PodRuntimeOptions& options);

  // Writes the status of `observed` when it differs from what `rec` last wrote; a failure is
  // logged (the next sync tries again).
  void write(PodRecord& rec, const kube::Pod& pod, const std::vector<ObservedContainer>& observed);

 private:
  // False when the pod is gone.
  bool patch(const kube::Pod& pod, const kube::PodStatus& status);

  PodApi& api_;
  const PodRuntimeOptions& options_;
};

}  // namespace tailor::node::runtime
