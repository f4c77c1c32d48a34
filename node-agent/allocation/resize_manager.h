// The node agent's allocation manager (the kubelet's allocation manager and resize loop): for
// every pod bound to the node it admits the pod, admits resizes with the same rule (atomic per
// pod: Deferred / Infeasible / accept), keeps the allocation checkpoint, has the runtime actuate
// accepted resizes, and reports the outcome in the pod status, events and metrics.
//
// It is synchronous and single-threaded: ResizeManagerLoop (resize_manager_loop.h) feeds it
// informer events and timers from one worker thread. Its I/O goes through narrow interfaces
// (runtime, status writer, events, checkpoint store), so the decisions are tested with fakes.
//
// Order of work for one pod: decide (admission) → checkpoint (a failed write keeps the resize
// pending) → status (PodResizeInProgress, ResizeStarted) → actuate → read back → status
// (allocatedResources, resources; PodResizeInProgress removed or Error) → retry the Deferred
// resizes when capacity may have been freed.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "kube/model/pod.h"
#include "kube/model/time.h"
#include "node-agent/allocation/checkpoint.h"
#include "node-agent/allocation/node_agent_metrics.h"
#include "node-agent/allocation/pod_status.h"
#include "node-agent/allocation/resize_admission.h"

namespace tailor::node::allocation {

// What the runtime reports and does for one pod; the container names are the spec's.
struct RuntimeReport {
  // Actual resources of the containers the runtime runs (absent: not running yet).
  std::map<std::string, kube::ResourceRequirements> actual;
  // Every allocated container runs with its allocation (a resize is complete).
  bool matches_allocation = false;
};

struct ActuationReport {
  RuntimeReport runtime;
  std::optional<std::string> error;  // why the resize could not be applied now (retried)
};

class PodResourcesRuntime {
 public:
  virtual ~PodResourcesRuntime() = default;
  // Reads what the runtime applied. Throws on runtime failures.
  virtual RuntimeReport read(const kube::Pod& pod, const AllocatedPod& allocation) = 0;
  // Applies the allocation in the safe order and reads back; errors are reported, not thrown.
  virtual ActuationReport actuate(const kube::Pod& pod, const AllocatedPod& allocation) = 0;
};

class ResizeEventSink {
 public:
  virtual ~ResizeEventSink() = default;
  virtual void event(const kube::Pod& pod, const std::string& type, const std::string& reason,
                     const std::string& message) = 0;
};

class AllocationCheckpoint {
 public:
  virtual ~AllocationCheckpoint() = default;
  virtual void save(const Checkpoint& checkpoint) = 0;  // throws CheckpointError
};

struct ResizeManagerOptions {
  kube::ResourceList node_allocatable;
  AdmissionOptions admission;
  // Retry of a failed actuation: doubles from initial up to max.
  std::chrono::milliseconds error_backoff_initial{500};
  std::chrono::milliseconds error_backoff_max{std::chrono::seconds(30)};
  std::function<kube::TimePoint()> now;  // default: system clock
};

class ResizeManager {
 public:
  ResizeManager(ResizeManagerOptions options, PodResourcesRuntime& runtime, PodStatusWriter& status,
                ResizeEventSink& events, AllocationCheckpoint& checkpoint,
                NodeAgentMetrics& metrics);

  // Start-up, after the pod list: the checkpointed allocations of pods that still exist are taken
  // as admitted, then pods the checkpoint does not know are admitted in creation order, then
  // resizes in flight resume and pending resizes are tried (retry order).
  void restore(const Checkpoint& checkpoint, const std::vector<kube::Pod>& pods);

  // A pod was added or changed (or resynced).
  void sync_pod(const kube::Pod& pod);
  void remove_pod(const std::string& uid);
  // Tries every pending (Deferred) resize in retry order.
  void retry_pending(RetryTrigger trigger);
  // Resizes whose actuation failed and whose backoff has passed are tried again; returns when
  // the next one is due (nullopt: none waiting).
  std::optional<kube::TimePoint> retry_failed();

  // For tests and health checks.
  std::optional<AllocatedPod> allocation(const std::string& uid) const;
  Checkpoint checkpoint() const;
  std::vector<std::string> pending() const;  // uids, in retry order

 private:
  struct PodState {
    kube::Pod pod;
    std::optional<ResizeCondition> pending;  // Deferred / Infeasible decision
    std::int64_t decided_generation = 0;     // generation of the last decision
    std::int64_t proposed_generation = 0;    // last generation counted as proposed
    bool proposal_open = false;              // proposed and not yet infeasible/completed
    kube::TimePoint pending_since{};
    std::optional<std::string> actuation_error;
    std::optional<kube::TimePoint> accepted_at;
    std::optional<kube::TimePoint> retry_at;
    std::chrono::milliseconds backoff{0};
    RuntimeReport runtime;
    bool rejected = false;
    bool publish_acceptance = false;  // accepted; the status shows it before actuation starts
  };

  void admit_new(PodState& state);
  void decide_resize(PodState& state, std::optional<RetryTrigger> trigger);
  void count_proposal(PodState& state);
  void accept(PodState& state, const AllocatedPod& desired, std::optional<RetryTrigger> trigger);
  void set_pending(PodState& state, const AdmissionResult& result);
  void actuate(PodState& state);
  void complete(PodState& state);
  void fail_actuation(PodState& state, const std::string& error);
  void write_status(PodState& state);
  bool save_checkpoint(const kube::Pod& pod);
  void process(PodState& state, std::optional<RetryTrigger> trigger);
  void run_requested_retries();
  void update_gauges();
  kube::ResourceList others_allocated(const std::string& uid) const;
  kube::TimePoint now() const;
  void event(const PodState& state, const char* type, const std::string& reason,
             const std::string& message);

  ResizeManagerOptions options_;
  PodResourcesRuntime& runtime_;
  PodStatusWriter& status_;
  ResizeEventSink& events_;
  AllocationCheckpoint& checkpoint_;
  NodeAgentMetrics& metrics_;

  std::map<std::string, PodState> pods_;             // by uid
  std::map<std::string, AllocatedPod> allocations_;  // by uid; what the checkpoint holds
  std::optional<RetryTrigger> retry_requested_;
  bool retrying_ = false;
};

}  // namespace tailor::node::allocation
