#include "node-agent/runtime/pod_runtime_container_sync.h"

#include "node-agent/runtime/pod_runtime_restart.h"

namespace tailor::node::runtime {
namespace {

// The latest attempt as the runtime shows it, with the one before as lastState; a created one is
// started first.
ObservedContainer observe(ContainerStarter& starter, PodRecord& rec,
                          const kube::Container& container, const Attempts& attempts) {
  ObservedContainer observed{.name = container.name, .image = container.image};
  if (auto it = rec.images.find(container.name); it != rec.images.end())
    observed.image = it->second;
  if (attempts.empty()) return observed;
  const cri::ContainerSummary& latest = attempts.front();
  if (attempts.size() > 1) observed.previous = starter.status_of(rec, attempts[1].id);
  if (latest.state == cri::ContainerState::Created) starter.start_created(latest.id, observed);
  observed.current = starter.status_of(rec, latest.id);
  return observed;
}

bool restartable(const kube::Pod& pod, const ObservedContainer& observed) {
  return observed.current->state == cri::ContainerState::Exited &&
         should_restart(pod.spec.restart_policy, observed.current->exit_code);
}

RestartBackoff& backoff_of(PodRecord& rec, const PodRuntimeOptions& options,
                           const std::string& container) {
  return rec.backoff
      .try_emplace(container, options.restart_backoff_initial, options.restart_backoff_max)
      .first->second;
}

}  // namespace

ObservedContainer sync_container(ContainerStarter& starter, const PodRuntimeOptions& options,
                                 PodRecord& rec, const RuntimePod& pod,
                                 const kube::Container& container, const Attempts& attempts,
                                 const cri::ResourceAmounts& amounts) {
  ObservedContainer observed = observe(starter, rec, container, attempts);
  if (attempts.empty()) {
    starter.start_attempt(rec, pod, container, 0, amounts, attempts, observed);
    return observed;
  }
  if (!restartable(pod.pod, observed)) return observed;
  RestartBackoff& backoff = backoff_of(rec, options, container.name);
  const auto now = options.now();
  if (now < backoff.next_allowed()) {
    observed.waiting_reason = "CrashLoopBackOff";
    observed.waiting_message =
        crash_loop_message(backoff.delay(), container.name, pod.pod.metadata.name,
                           pod.pod.metadata.namespace_, pod.pod.metadata.uid);
    return observed;
  }
  backoff.restarted(now);
  ObservedContainer restarted{.name = container.name, .image = observed.image};
  restarted.previous = observed.current;
  starter.start_attempt(rec, pod, container, attempts.front().attempt + 1, amounts, attempts,
                        restarted);
  if (!restarted.current)
    restarted.current = observed.current;  // waiting, with the exit as last state
  return restarted;
}

}  // namespace tailor::node::runtime
