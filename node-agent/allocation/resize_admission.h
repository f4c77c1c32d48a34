// The node's admission rule for a pod, with no I/O. Initial admission and the admission of a
// resize share it (the kubelet's allocation manager, 1.33+): the pod's desired requests must fit
// node allocatable on their own (else Infeasible: waiting cannot help) and must fit what the
// other pods' allocated requests leave free (else Deferred: retried when capacity is freed).
// All of a pod's container changes are admitted together or not at all.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

#include "kube/model/pod.h"
#include "kube/model/resources.h"

namespace tailor::node::allocation {

enum class AdmissionVerdict { Accept, Deferred, Infeasible };

// "Accept", or the PodResizePending reason ("Deferred", "Infeasible").
std::string_view to_string(AdmissionVerdict verdict);

struct AdmissionResult {
  AdmissionVerdict verdict = AdmissionVerdict::Accept;
  std::string message{};  // empty on Accept; the kubelet's text otherwise
};

enum class CpuManagerPolicy { None, Static };
enum class MemoryManagerPolicy { None, Static };

struct AdmissionOptions {
  CpuManagerPolicy cpu_manager_policy = CpuManagerPolicy::None;
  MemoryManagerPolicy memory_manager_policy = MemoryManagerPolicy::None;
};

// Input no API server would accept (negative allocatable or requests); the message names it.
class AdmissionError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// A new pod: its requests (overhead included) against allocatable and against what is free.
// other_pods_allocated is the sum of the allocated requests of every other pod on the node.
AdmissionResult admit_pod(const kube::Pod& pod, const kube::ResourceList& node_allocatable,
                          const kube::ResourceList& other_pods_allocated);

// A resize of an admitted pod: pod.spec holds the desired resources, allocated_requests the
// pod's currently allocated total requests (to tell which resources change). Guaranteed pods
// cannot change CPU under the static CPU manager, nor memory under the static memory manager.
AdmissionResult admit_resize(const kube::Pod& pod, const kube::ResourceList& allocated_requests,
                             const kube::ResourceList& node_allocatable,
                             const kube::ResourceList& other_pods_allocated,
                             const AdmissionOptions& options = {});

}  // namespace tailor::node::allocation
