#include "node-agent/runtime/pod_runtime_container_sync.h"

#include "node-agent/runtime/pod_runtime_restart.h"

namespace tailor::node::runtime {
namespace {

// The latest attempt as the runtime shows it, with the one before as lastState; a created one is
// started first when `may_start`.
ObservedContainer observe(ContainerStarter& starter, PodRecord& rec,
                          const kube::Container& container, const Attempts& attempts,
                          bool may_start) {
  ObservedContainer observed{.name = container.name, .image = container.image};
  if (auto it = rec.images.find(container.name); it != rec.images.end())
    observed.image = it->second;
  if (attempts.empty()) return observed;
  const cri::ContainerSummary& latest = attempts.front();
  if (attempts.size() > 1) observed.previous = starter.status_of(rec, attempts[1].id);
  if (may_start && latest.state == cri::ContainerState::Created) {
    starter.start_created(latest.id, observed);
  }
  observed.current = starter.status_of(rec, latest.id);
  return observed;
}

// A container whose state the runtime lost (containerd killed while it was being started or
// stopped loads it back as UNKNOWN) is always restarted, as the kubelet does: left alone it would
// never run again.
bool lost(const ObservedContainer& observed) {
  return observed.current->state == cri::ContainerState::Unknown;
}

bool restartable(const kube::Pod& pod, const ObservedContainer& observed) {
  if (lost(observed)) return true;
  return observed.current->state == cri::ContainerState::Exited &&
         should_restart(pod.spec.restart_policy, observed.current->exit_code);
}

RestartBackoff& backoff_of(PodRecord& rec, const PodRuntimeOptions& options,
                           const std::string& container) {
  return rec.backoff
      .try_emplace(container, options.restart_backoff_initial, options.restart_backoff_max)
      .first->second;
}

// The runtime refused to create or start the container (not a missing image: that asks nothing of
// the runtime and has its own reasons).
bool runtime_failure(const ObservedContainer& observed) {
  return observed.waiting_reason == "CreateContainerError" ||
         observed.waiting_reason == "RunContainerError";
}

// After a try: a runtime failure is held for the back-off, anything else clears it.
void note_try(PodRecord& rec, const PodRuntimeOptions& options, const std::string& container,
              const ObservedContainer& observed, RestartBackoff::Clock::time_point now) {
  if (!runtime_failure(observed)) {
    rec.start_failures.erase(container);
    return;
  }
  auto [it, added] = rec.start_failures.try_emplace(
      container, FailedStep{{options.restart_backoff_initial, options.restart_backoff_max}});
  it->second.failed(now, observed.waiting_reason, observed.waiting_message);
}

// A container whose create or start failed, inside its back-off: nothing is asked of the
// runtime, the status keeps the failure.
std::optional<ObservedContainer> held(ContainerStarter& starter, PodRecord& rec,
                                      const kube::Container& container, const Attempts& attempts,
                                      RestartBackoff::Clock::time_point now) {
  auto failed = rec.start_failures.find(container.name);
  if (failed == rec.start_failures.end() || failed->second.due(now)) return std::nullopt;
  ObservedContainer observed = observe(starter, rec, container, attempts, false);
  observed.waiting_reason = failed->second.reason;
  observed.waiting_message = failed->second.message;
  return observed;
}

}  // namespace

ObservedContainer sync_container(ContainerStarter& starter, const PodRuntimeOptions& options,
                                 PodRecord& rec, const RuntimePod& pod,
                                 const kube::Container& container, const Attempts& attempts,
                                 const cri::ResourceAmounts& amounts) {
  const auto now = options.now();
  if (auto waiting = held(starter, rec, container, attempts, now)) return *waiting;
  ObservedContainer observed = observe(starter, rec, container, attempts, true);
  if (attempts.empty()) {
    starter.start_attempt(rec, pod, container, 0, amounts, attempts, observed);
    note_try(rec, options, container.name, observed, now);
    return observed;
  }
  note_try(rec, options, container.name, observed, now);
  if (!restartable(pod.pod, observed)) return observed;
  RestartBackoff& backoff = backoff_of(rec, options, container.name);
  if (now < backoff.next_allowed()) {
    observed.waiting_reason = "CrashLoopBackOff";
    observed.waiting_message =
        crash_loop_message(backoff.delay(), container.name, pod.pod.metadata.name,
                           pod.pod.metadata.namespace_, pod.pod.metadata.uid);
    return observed;
  }
  backoff.restarted(now);
  // Stopped first, as the kubelet kills an unknown container before its restart: whether it still
  // runs is unknown, and two must never run.
  if (lost(observed)) {
    starter.stop_lost(attempts.front().id, pod.run.termination_grace_period_seconds);
  }
  ObservedContainer restarted{.name = container.name, .image = observed.image};
  restarted.previous = observed.current;
  starter.start_attempt(rec, pod, container, attempts.front().attempt + 1, amounts, attempts,
                        restarted);
  note_try(rec, options, container.name, restarted, now);
  if (!restarted.current)
    restarted.current = observed.current;  // waiting, with the exit as last state
  return restarted;
}

}  // namespace tailor::node::runtime
