// What the node agent shows in a pod's status about its resources, and how it gets there.
// The agent owns: conditions PodResizePending (reason Deferred | Infeasible) and
// PodResizeInProgress (reason "" | Error), status.observedGeneration, and per container
// allocatedResources (allocated) and resources (actual, from the runtime). Everything else in
// the status belongs to whoever runs the containers.
//
// Writes are JSON patches computed against the pod as stored, guarded by its resourceVersion:
// when the pod changed in between (409, or a failed "test" op), the pod is read again and the
// patch rebuilt (KEP-1287 flow, T=6/T=7), so a concurrent resize or container update is never
// overwritten.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "kube/model/encode.h"
#include "kube/model/pod.h"
#include "kube/model/time.h"

namespace tailor::kube {
class RestClient;
}

namespace tailor::node::allocation {

struct ResizeCondition {
  std::string
      reason;  // PodResizePending: "Deferred" | "Infeasible"; PodResizeInProgress: "" | "Error"
  std::string message;  // the numbers, or the error
  std::int64_t observed_generation = 0;
  bool operator==(const ResizeCondition&) const = default;
};

struct DesiredResizeStatus {
  std::optional<ResizeCondition> pending;      // absent: PodResizePending removed
  std::optional<ResizeCondition> in_progress;  // absent: PodResizeInProgress removed
  std::vector<kube::ContainerResourcesStatus> containers;
  std::optional<std::int64_t> observed_generation;
};

// The change that brings `current` to `desired`, naming only what differs. lastTransitionTime is
// kept while a condition's reason stays the same (set to `now` otherwise). Containers that have
// no status yet are left out (the runtime side has not reported them).
kube::PodStatusPatch resize_status_change(const kube::Pod& current,
                                          const DesiredResizeStatus& desired, kube::TimePoint now);
bool is_empty(const kube::PodStatusPatch& patch);

class PodStatusWriter {
 public:
  using Change = std::function<kube::PodStatusPatch(const kube::Pod& current)>;
  virtual ~PodStatusWriter() = default;
  // Writes change(pod as stored). `cached` is the agent's latest copy, tried first. A pod that
  // no longer exists is not an error. Throws when the write keeps failing.
  virtual void update(const kube::Pod& cached, const Change& change) = 0;
  // Rejects a pod at admission, as the kubelet does: phase Failed with reason and message.
  virtual void reject(const kube::Pod& pod, const std::string& reason,
                      const std::string& message) = 0;
};

// JSON merge patch {"status":{"phase":"Failed","reason":...,"message":...}}.
std::string pod_rejection_patch(const std::string& reason, const std::string& message);

// Writes through pods/{name}/status with re-read and retry on conflicts.
class RestPodStatusWriter : public PodStatusWriter {
 public:
  explicit RestPodStatusWriter(kube::RestClient& client, int max_attempts = 5);
  void update(const kube::Pod& cached, const Change& change) override;
  void reject(const kube::Pod& pod, const std::string& reason, const std::string& message) override;

  // Writes that had to re-read the pod (409 Conflict or a failed test op).
  std::uint64_t conflicts() const { return conflicts_; }

 private:
  kube::RestClient& client_;
  int max_attempts_;
  std::uint64_t conflicts_ = 0;
};

}  // namespace tailor::node::allocation
