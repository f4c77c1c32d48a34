// Rebuilding allocations the checkpoint does not hold (it was missing, corrupt or written by an
// unknown version) from what can be observed, so that a pod whose containers run is never
// re-admitted as if new (and failed, with its containers left running, when its spec asks for more
// than is free, as with a Deferred resize).
//
// The kubelet does not do this: it refuses to start on a damaged checkpoint ("please drain this
// node and delete ... checkpoint file") and, with none, re-admits every pod with its spec, which
// can reject a running pod. The KEP chose a checkpoint because allocation cannot be observed
// completely: the memory request is never written to a cgroup. So each value comes from the best
// witness there is:
//   1. a running container: what the runtime applied (CPU request from shares, CPU limit from
//      quota/period, memory limit), read back as for the status (actual_resources);
//   2. the pod status the agent wrote: allocatedResources (requests, including the memory
//      request), then status resources (limits as last applied);
//   3. the spec, for a value nothing else shows (a container that never started).
// Which resources a container has (requests/limits of cpu/memory) is the spec's: a resize never
// adds or removes one. A rebuilt pod has no resize in flight (allocated = actual), so a resize the
// spec still asks for is decided again by the normal rules (accepted, Deferred or Infeasible).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "kube/model/pod.h"
#include "node-agent/allocation/checkpoint.h"
#include "node-agent/cri/cri_client.h"

namespace tailor::node::allocation {

// The running containers of one pod, by spec container name: the resources the runtime applied
// to the newest attempt (nullopt: the runtime does not report them).
using PodRuntimeView = std::map<std::string, std::optional<cri::LinuxResources>>;
// By pod uid.
using NodeRuntimeView = std::map<std::string, PodRuntimeView>;

// Where a container's rebuilt allocation came from.
enum class RebuildSource { Runtime, Status, Spec };
std::string_view to_string(RebuildSource source);

struct RebuiltPod {
  AllocatedPod allocation;
  std::map<std::string, RebuildSource> sources;  // by container name
  bool operator==(const RebuiltPod&) const = default;
};

struct RebuildResult {
  Checkpoint checkpoint;            // `known` plus the rebuilt pods
  std::vector<RebuiltPod> rebuilt;  // in the order of `pods`
};

// Pods that ran here before: some container runs, or the status shows an allocation.
bool was_admitted(const kube::Pod& pod, const PodRuntimeView* runtime);

// The allocation of one pod from the witnesses above.
RebuiltPod rebuild_allocation(const kube::Pod& pod, const PodRuntimeView* runtime);

// `known` with every pod of `pods` it lacks that was admitted here before (terminal pods aside).
RebuildResult rebuild_allocations(const Checkpoint& known, const std::vector<kube::Pod>& pods,
                                  const NodeRuntimeView& runtime);

// One line for logs and events: "a=runtime, b=status".
std::string describe_sources(const RebuiltPod& pod);

}  // namespace tailor::node::allocation
