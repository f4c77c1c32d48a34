#include "node-agent/allocation/resize_manager.h"

#include <algorithm>
#include <utility>

#include "kube/client/events.h"
#include "kube/model/qos.h"
#include "kube/observe/log.h"
#include "node-agent/allocation/allocation_state.h"
#include "node-agent/allocation/resize_queue.h"
#include "node-agent/allocation/resource_bounds.h"

namespace tailor::node::allocation {
namespace {

bool is_terminal(const kube::Pod& pod) {
  return pod.status.phase == "Succeeded" || pod.status.phase == "Failed";
}

kube::log::ObjectRef kobj(const kube::Pod& pod) {
  return kube::log::kobj(pod.metadata.namespace_, pod.metadata.name);
}

// kubelet_pod_infeasible_resizes_total{reason_detail}.
std::string_view infeasible_detail(const std::string& message) {
  if (message.find("CPU Manager") != std::string::npos) return "static_cpu_manager";
  if (message.find("Memory Manager") != std::string::npos) return "static_memory_manager";
  if (message.find("enough capacity") != std::string::npos) return "insufficient_node_allocatable";
  return "invalid_request";
}

// "Node didn't have enough resource: cpu, requested: ..." → "cpu".
std::string rejected_resource(const std::string& message) {
  const std::size_t colon = message.find(": ");
  if (colon == std::string::npos) return "resources";
  const std::size_t comma = message.find(',', colon);
  return message.substr(colon + 2,
                        comma == std::string::npos ? std::string::npos : comma - colon - 2);
}

bool frees_requests(const AllocatedPod& from, const AllocatedPod& to) {
  for (const ResourceChange& c : resource_changes(from, to)) {
    if (c.requirement == "requests" && (c.operation == "decrease" || c.operation == "remove")) {
      return true;
    }
  }
  return false;
}

std::string without_digits(std::string text) {
  std::erase_if(text, [](char c) { return c >= '0' && c <= '9'; });
  return text;
}

}  // namespace

ResizeManager::ResizeManager(ResizeManagerOptions options, PodResourcesRuntime& runtime,
                             PodStatusWriter& status, ResizeEventSink& events,
                             AllocationCheckpoint& checkpoint, NodeAgentMetrics& metrics)
    : options_(std::move(options)),
      runtime_(runtime),
      status_(status),
      events_(events),
      checkpoint_(checkpoint),
      metrics_(metrics) {}

kube::TimePoint ResizeManager::now() const {
  return options_.now ? options_.now() : std::chrono::system_clock::now();
}

void ResizeManager::event(const PodState& state, const char* type, const std::string& reason,
                          const std::string& message) {
  try {
    events_.event(state.pod, type, reason, message);
  } catch (const std::exception& e) {
    kube::log::error(e, "Recording event failed", {{"pod", kobj(state.pod)}, {"reason", reason}});
  }
}

void ResizeManager::restore(const Checkpoint& checkpoint, const std::vector<kube::Pod>& pods) {
  std::vector<const kube::Pod*> ordered;
  for (const kube::Pod& pod : pods) {
    if (!is_terminal(pod)) ordered.push_back(&pod);
  }
  std::stable_sort(ordered.begin(), ordered.end(), [](const kube::Pod* a, const kube::Pod* b) {
    return a->metadata.creation_timestamp < b->metadata.creation_timestamp;
  });
  for (const kube::Pod* pod : ordered) pods_[pod->metadata.uid].pod = *pod;
  // 1. Every checkpointed pod is admitted as it was; pods deleted meanwhile are released.
  for (const auto& [uid, allocation] : checkpoint.pods) {
    auto it = pods_.find(uid);
    if (it == pods_.end()) continue;
    allocations_[uid] = allocation;
    if (allocation.resize_in_progress) {
      it->second.proposal_open = true;
      it->second.proposed_generation = allocation.in_progress_generation;
      it->second.accepted_at = now();
    }
  }
  if (allocations_.size() != checkpoint.pods.size()) save_checkpoint(kube::Pod{});
  // 2. Pods created while the agent was away, in creation order.
  for (const kube::Pod* pod : ordered) {
    PodState& state = pods_[pod->metadata.uid];
    if (!allocations_.contains(pod->metadata.uid)) admit_new(state);
  }
  // 3. Resizes in flight complete; 4. then the pending ones, in retry order.
  for (const kube::Pod* pod : ordered) {
    const auto it = allocations_.find(pod->metadata.uid);
    if (it != allocations_.end() && it->second.resize_in_progress) {
      process(pods_[pod->metadata.uid], std::nullopt);
    }
  }
  std::vector<std::string> rest;
  for (const kube::Pod* pod : ordered) {
    const auto it = allocations_.find(pod->metadata.uid);
    if (it != allocations_.end() && !it->second.resize_in_progress) {
      rest.push_back(pod->metadata.uid);
    }
  }
  std::stable_sort(rest.begin(), rest.end(), [&](const std::string& a, const std::string& b) {
    const auto key = [&](const std::string& uid) {
      const PodState& s = pods_.at(uid);
      return pending_resize(s.pod, allocated_requests(s.pod, allocations_.at(uid)), now());
    };
    return retry_before(key(a), key(b));
  });
  for (const std::string& uid : rest) process(pods_.at(uid), RetryTrigger::Restart);
  run_requested_retries();
  update_gauges();
}

void ResizeManager::sync_pod(const kube::Pod& pod) {
  const std::string uid = pod.metadata.uid;
  if (is_terminal(pod) && !pods_[uid].rejected) {
    remove_pod(uid);
    return;
  }
  PodState& state = pods_[uid];
  state.pod = pod;
  if (state.rejected) return;
  process(state, std::nullopt);
  run_requested_retries();
  update_gauges();
}

void ResizeManager::remove_pod(const std::string& uid) {
  if (auto it = pods_.find(uid); it != pods_.end()) {
    if (it->second.proposal_open) metrics_.resize(ResizeState::Canceled);
    pods_.erase(it);
  }
  if (allocations_.erase(uid) > 0) {
    save_checkpoint(kube::Pod{});
    retry_requested_ = RetryTrigger::PodRemoved;
  }
  run_requested_retries();
  update_gauges();
}

void ResizeManager::process(PodState& state, std::optional<RetryTrigger> trigger) {
  const std::string& uid = state.pod.metadata.uid;
  if (!allocations_.contains(uid)) {
    admit_new(state);
    if (!allocations_.contains(uid)) return;
  }
  decide_resize(state, trigger);
  if (allocations_.at(uid).resize_in_progress) {
    // As the kubelet: the API shows the acceptance (allocated resources, PodResizeInProgress)
    // before the runtime is asked, never an accepted resize as not yet decided (KEP flow T=4).
    if (std::exchange(state.publish_acceptance, false)) write_status(state);
    actuate(state);
  } else {
    try {
      state.runtime = runtime_.read(state.pod, allocations_.at(uid));
    } catch (const std::exception& e) {
      kube::log::error(e, "Reading container resources failed", {{"pod", kobj(state.pod)}});
    }
  }
  write_status(state);
}

void ResizeManager::admit_new(PodState& state) {
  const kube::Pod& pod = state.pod;
  AdmissionResult result;
  std::string reason;
  try {
    result = admit_pod(pod, options_.node_allocatable, others_allocated(pod.metadata.uid));
  } catch (const AdmissionError& e) {
    result = {AdmissionVerdict::Infeasible, e.what()};
  }
  if (result.verdict == AdmissionVerdict::Accept) {
    if (auto why = unrepresentable_resources(pod)) {
      result = {AdmissionVerdict::Infeasible, *why};
      reason = "UnexpectedAdmissionError";
    }
  }
  if (result.verdict == AdmissionVerdict::Accept) {
    allocations_[pod.metadata.uid] = desired_allocation(pod);
    if (!save_checkpoint(pod)) allocations_.erase(pod.metadata.uid);
    return;
  }
  // As the kubelet rejects a pod that does not fit: phase Failed, reason OutOf<resource>.
  state.rejected = true;
  if (reason.empty()) reason = "OutOf" + rejected_resource(result.message);
  const std::string message = "Pod was rejected: " + result.message;
  event(state, kube::kEventTypeWarning, reason, message);
  try {
    status_.reject(pod, reason, message);
  } catch (const std::exception& e) {
    kube::log::error(e, "Rejecting pod failed", {{"pod", kobj(pod)}});
  }
}

void ResizeManager::count_proposal(PodState& state) {
  const std::int64_t generation = state.pod.metadata.generation;
  if (state.proposal_open && state.proposed_generation == generation) return;
  if (state.proposed_generation == generation && generation != 0) return;
  if (state.proposal_open) metrics_.resize(ResizeState::Canceled);  // superseded
  state.proposal_open = true;
  state.proposed_generation = generation;
  metrics_.resize(ResizeState::Proposed);
  const AllocatedPod& allocated = allocations_.at(state.pod.metadata.uid);
  for (const ResourceChange& c : resource_changes(allocated, desired_allocation(state.pod))) {
    metrics_.requested_resize(c.resource, c.requirement, c.operation);
  }
}

void ResizeManager::decide_resize(PodState& state, std::optional<RetryTrigger> trigger) {
  const kube::Pod& pod = state.pod;
  const AllocatedPod& allocated = allocations_.at(pod.metadata.uid);
  const AllocatedPod desired = desired_allocation(pod);
  if (same_resources(desired, allocated)) {
    // Nothing asked beyond what is allocated: a pending resize was reverted.
    if (state.pending) {
      state.pending.reset();
      if (state.proposal_open && !allocated.resize_in_progress) {
        metrics_.resize(ResizeState::Canceled);
        state.proposal_open = false;
      }
    }
    return;
  }
  count_proposal(state);
  // Infeasible is final until the spec changes.
  if (state.pending && state.pending->reason == "Infeasible" &&
      state.decided_generation == pod.metadata.generation) {
    return;
  }
  AdmissionResult result;
  try {
    result = admit_resize(pod, allocated_requests(pod, allocated), options_.node_allocatable,
                          others_allocated(pod.metadata.uid), options_.admission);
    // A value no cgroup can hold can never be applied: final, like a lack of capacity.
    if (result.verdict != AdmissionVerdict::Infeasible) {
      if (auto why = unrepresentable_resources(pod)) {
        result = {AdmissionVerdict::Infeasible, *why};
      }
    }
  } catch (const std::exception& e) {
    result = {AdmissionVerdict::Infeasible, e.what()};
  }
  state.decided_generation = pod.metadata.generation;
  if (result.verdict == AdmissionVerdict::Accept) {
    accept(state, desired, trigger);
  } else {
    set_pending(state, result);
  }
}

void ResizeManager::accept(PodState& state, const AllocatedPod& desired,
                           std::optional<RetryTrigger> trigger) {
  const kube::Pod& pod = state.pod;
  const std::string& uid = pod.metadata.uid;
  const AllocatedPod previous = allocations_.at(uid);
  AllocatedPod next = desired;
  next.resize_in_progress = true;
  next.in_progress_generation = pod.metadata.generation;
  allocations_[uid] = next;
  if (!save_checkpoint(pod)) {
    // Not allocated unless recorded: the resize stays pending and is retried.
    allocations_[uid] = previous;
    set_pending(state, {AdmissionVerdict::Deferred, "allocation checkpoint could not be written"});
    return;
  }
  if (state.pending && state.pending->reason == "Deferred" && trigger) {
    metrics_.deferred_accepted(*trigger);
  }
  state.pending.reset();
  state.actuation_error.reset();
  state.backoff = std::chrono::milliseconds(0);
  state.retry_at.reset();
  state.accepted_at = now();
  state.publish_acceptance = true;
  event(state, kube::kEventTypeNormal, "ResizeStarted",
        "Pod resize started: generation " + std::to_string(pod.metadata.generation));
  if (frees_requests(previous, next)) retry_requested_ = RetryTrigger::PodResizedDown;
}

void ResizeManager::set_pending(PodState& state, const AdmissionResult& result) {
  const ResizeCondition condition{std::string(to_string(result.verdict)), result.message,
                                  state.pod.metadata.generation};
  const bool new_reason = !state.pending || state.pending->reason != condition.reason;
  const bool changed = !state.pending || *state.pending != condition;
  if (new_reason) state.pending_since = now();
  state.pending = condition;
  if (!changed) return;
  if (result.verdict == AdmissionVerdict::Infeasible) {
    event(state, kube::kEventTypeWarning, "ResizeInfeasible", result.message);
    metrics_.resize(ResizeState::Infeasible);
    metrics_.infeasible(infeasible_detail(result.message));
    state.proposal_open = false;
  } else {
    event(state, kube::kEventTypeWarning, "ResizeDeferred", result.message);
    if (new_reason) metrics_.resize(ResizeState::Deferred);
  }
}

void ResizeManager::actuate(PodState& state) {
  ActuationReport report;
  try {
    report = runtime_.actuate(state.pod, allocations_.at(state.pod.metadata.uid));
  } catch (const std::exception& e) {
    report.error = e.what();
  }
  state.runtime = report.runtime;
  if (report.error) {
    fail_actuation(state, *report.error);
  } else if (report.runtime.matches_allocation) {
    complete(state);
  } else {
    // The containers are not all running yet; they start with the allocation.
    state.retry_at = now() + options_.error_backoff_initial;
  }
}

void ResizeManager::complete(PodState& state) {
  AllocatedPod& allocation = allocations_.at(state.pod.metadata.uid);
  allocation.resize_in_progress = false;
  save_checkpoint(state.pod);  // if lost, the resize is repeated after a restart (idempotent)
  state.actuation_error.reset();
  state.backoff = std::chrono::milliseconds(0);
  state.retry_at.reset();
  event(state, kube::kEventTypeNormal, "ResizeCompleted",
        "Pod resize completed: generation " + std::to_string(allocation.in_progress_generation));
  if (state.proposal_open && state.proposed_generation == allocation.in_progress_generation) {
    metrics_.resize(ResizeState::Completed);
    state.proposal_open = false;
  }
  if (state.accepted_at) {
    metrics_.resize_duration(
        std::chrono::duration_cast<std::chrono::milliseconds>(now() - *state.accepted_at), true);
    state.accepted_at.reset();
  }
  retry_requested_ = RetryTrigger::ResizeCompleted;
}

void ResizeManager::fail_actuation(PodState& state, const std::string& error) {
  // One event per kind of failure: usage figures change on every retry of the same refusal.
  if (!state.actuation_error || without_digits(*state.actuation_error) != without_digits(error)) {
    event(state, kube::kEventTypeWarning, "ResizeError", error);
    kube::log::warning("Resize not applied", {{"pod", kobj(state.pod)}, {"error", error}});
  }
  state.actuation_error = error;
  state.backoff = state.backoff.count() == 0
                      ? options_.error_backoff_initial
                      : std::min(state.backoff * 2, options_.error_backoff_max);
  state.retry_at = now() + state.backoff;
}

void ResizeManager::write_status(PodState& state) {
  const kube::Pod& pod = state.pod;
  const AllocatedPod& allocation = allocations_.at(pod.metadata.uid);
  DesiredResizeStatus desired;
  desired.pending = state.pending;
  if (allocation.resize_in_progress) {
    desired.in_progress =
        ResizeCondition{state.actuation_error ? "Error" : "", state.actuation_error.value_or(""),
                        allocation.in_progress_generation};
  }
  for (const auto* list : {&allocation.containers, &allocation.init_containers}) {
    for (const AllocatedContainer& c : *list) {
      kube::ContainerResourcesStatus status{c.name, c.resources.requests, std::nullopt};
      if (auto it = state.runtime.actual.find(c.name); it != state.runtime.actual.end()) {
        status.resources = it->second;
      }
      desired.containers.push_back(std::move(status));
    }
  }
  if (pod.metadata.generation > 0) desired.observed_generation = pod.metadata.generation;
  const kube::TimePoint at = now();
  try {
    status_.update(pod, [&desired, at](const kube::Pod& current) {
      return resize_status_change(current, desired, at);
    });
  } catch (const std::exception& e) {
    kube::log::error(e, "Writing pod status failed", {{"pod", kobj(pod)}});
    if (!state.retry_at) state.retry_at = at + options_.error_backoff_initial;
  }
}

bool ResizeManager::save_checkpoint(const kube::Pod& pod) {
  try {
    checkpoint_.save(checkpoint());
    return true;
  } catch (const CheckpointError& e) {
    metrics_.checkpoint_error(to_string(e.kind()));
    kube::log::error(e, "Writing the allocation checkpoint failed");
    if (!pod.metadata.uid.empty()) {
      PodState state;
      state.pod = pod;
      event(state, kube::kEventTypeWarning, "ResizeError",
            "allocation checkpoint not written: " + std::string(e.what()));
    }
    return false;
  }
}

void ResizeManager::retry_pending(RetryTrigger trigger) {
  retry_requested_ = trigger;
  run_requested_retries();
  update_gauges();
}

void ResizeManager::run_requested_retries() {
  if (retrying_) return;
  retrying_ = true;
  while (retry_requested_) {
    const RetryTrigger trigger = *retry_requested_;
    retry_requested_.reset();
    for (const std::string& uid : pending()) {
      auto it = pods_.find(uid);
      if (it != pods_.end()) process(it->second, trigger);
    }
  }
  retrying_ = false;
}

std::optional<kube::TimePoint> ResizeManager::retry_failed() {
  const kube::TimePoint t = now();
  std::vector<std::string> due;
  for (const auto& [uid, state] : pods_) {
    if (state.retry_at && *state.retry_at <= t) due.push_back(uid);
  }
  for (const std::string& uid : due) {
    auto it = pods_.find(uid);
    if (it == pods_.end()) continue;
    it->second.retry_at.reset();
    process(it->second, std::nullopt);
  }
  run_requested_retries();
  update_gauges();
  std::optional<kube::TimePoint> next;
  for (const auto& [uid, state] : pods_) {
    if (state.retry_at && (!next || *state.retry_at < *next)) next = state.retry_at;
  }
  return next;
}

kube::ResourceList ResizeManager::others_allocated(const std::string& uid) const {
  kube::ResourceList sum;
  for (const auto& [other, allocation] : allocations_) {
    if (other == uid) continue;
    auto it = pods_.find(other);
    if (it == pods_.end()) continue;
    kube::add_resources(sum, allocated_requests(it->second.pod, allocation));
  }
  return sum;
}

std::vector<std::string> ResizeManager::pending() const {
  std::vector<std::pair<PendingResize, std::string>> queue;
  for (const auto& [uid, state] : pods_) {
    if (!state.pending || state.pending->reason != "Deferred") continue;
    const auto allocation = allocations_.find(uid);
    if (allocation == allocations_.end()) continue;
    PendingResize key;
    key.increases_requests = increases_requests(allocation->second, desired_allocation(state.pod));
    key.priority = state.pod.spec.priority.value_or(0);
    key.qos = kube::pod_qos(state.pod);
    key.pending_since = state.pending_since;
    queue.emplace_back(key, uid);
  }
  std::stable_sort(queue.begin(), queue.end(),
                   [](const auto& a, const auto& b) { return retry_before(a.first, b.first); });
  std::vector<std::string> out;
  for (auto& [key, uid] : queue) out.push_back(uid);
  return out;
}

void ResizeManager::update_gauges() {
  double deferred = 0, infeasible = 0, in_progress = 0;
  for (const auto& [uid, state] : pods_) {
    if (state.pending) (state.pending->reason == "Deferred" ? deferred : infeasible) += 1;
  }
  for (const auto& [uid, allocation] : allocations_) {
    if (allocation.resize_in_progress) in_progress += 1;
  }
  metrics_.set_pending("deferred", deferred);
  metrics_.set_pending("infeasible", infeasible);
  metrics_.set_in_progress(in_progress);
}

std::optional<AllocatedPod> ResizeManager::allocation(const std::string& uid) const {
  auto it = allocations_.find(uid);
  if (it == allocations_.end()) return std::nullopt;
  return it->second;
}

Checkpoint ResizeManager::checkpoint() const {
  Checkpoint out;
  out.pods = allocations_;
  return out;
}

}  // namespace tailor::node::allocation
