#include "node-agent/runtime/pod_runtime.h"

#include <algorithm>
#include <filesystem>
#include <mutex>
#include <set>
#include <thread>

#include "kube/model/time.h"
#include "kube/observe/log.h"
#include "node-agent/runtime/cri_specs.h"
#include "node-agent/runtime/pod_runtime_restart.h"
#include "node-agent/runtime/pod_runtime_status.h"

namespace tailor::node::runtime {
namespace {
namespace fs = std::filesystem;

// A spec container's attempts in the runtime, newest first.
using Attempts = std::vector<cri::ContainerSummary>;

std::map<std::string, Attempts> attempts_by_name(std::vector<cri::ContainerSummary> containers) {
  std::map<std::string, Attempts> out;
  for (auto& container : containers) out[container.name].push_back(std::move(container));
  for (auto& [name, attempts] : out) {
    std::sort(attempts.begin(), attempts.end(),
              [](const auto& a, const auto& b) { return a.attempt > b.attempt; });
  }
  return out;
}

cri::ContainerFilter in_sandbox(const std::string& sandbox_id,
                                std::optional<cri::ContainerState> state = std::nullopt) {
  cri::ContainerFilter filter;
  filter.pod_sandbox_id = sandbox_id;
  filter.state = state;
  return filter;
}

cri::ContainerFilter of_pod(const std::string& uid) {
  cri::ContainerFilter filter;
  filter.label_selector[kLabelPodUid] = uid;
  return filter;
}

std::string now_rfc3339() {
  return kube::format_rfc3339(kube::TimePoint(std::chrono::system_clock::now()));
}

kube::log::ObjectRef ref(const kube::Pod& pod) {
  return kube::log::kobj(pod.metadata.namespace_, pod.metadata.name);
}

}  // namespace

struct PodRecord {
  std::mutex mutex;  // held for a whole sync/terminate of this pod
  std::string sandbox_id;
  std::string start_time;
  std::map<std::string, RestartBackoff> backoff;
  std::map<std::string, int> pull_failures;
  std::map<std::string, std::string> images;           // resolved names, by container
  std::map<std::string, cri::ContainerStatus> exited;  // exited attempts never change, by id
  std::optional<kube::PodStatus> written;
  std::optional<PodRunSpec> run;  // of the last sync
  std::string last_patch;
  bool sandbox_stopped = false;
};

struct PodRuntime::Impl {
  Impl(cri::RuntimeService& r, cri::ImageService& i, PodApi& a, PodRuntimeOptions o)
      : runtime(r), images(i), api(a), options(std::move(o)) {}
  cri::RuntimeService& runtime;
  cri::ImageService& images;
  PodApi& api;
  PodRuntimeOptions options;

  mutable std::mutex mutex;  // guards the maps below, never held over a CRI call
  std::map<std::string, std::shared_ptr<PodRecord>> pods;
  std::map<std::string, RunningPod> sandboxes;  // uid -> sandbox and cgroup parent
  std::set<std::string> terminated;

  std::shared_ptr<PodRecord> record(const std::string& uid) {
    std::lock_guard lock(mutex);
    auto& slot = pods[uid];
    if (!slot) slot = std::make_shared<PodRecord>();
    return slot;
  }

  bool is_terminated(const std::string& uid) const {
    std::lock_guard lock(mutex);
    return terminated.contains(uid);
  }

  void remember_sandbox(const kube::Pod& pod, const std::string& sandbox_id) {
    std::lock_guard lock(mutex);
    auto& entry = sandboxes[pod.metadata.uid];
    entry.uid = pod.metadata.uid;
    entry.ns = pod.metadata.namespace_;
    entry.name = pod.metadata.name;
    entry.sandbox_id = sandbox_id;
    entry.cgroup_parent = sandbox_cgroup_parent(pod, options.driver);
    entry.cgroup_path = pod_cgroup_path(pod, options.driver);
  }

  // ---- pod cgroup (the agent's own, as it is the kubelet's)

  std::vector<fs::path> hierarchies(const std::string& path, bool every_controller) const {
    const fs::path root = options.cgroups.root;
    if (options.cgroups.version == cri::CgroupVersion::V2) return {root / path.substr(1)};
    std::vector<fs::path> out;
    if (!every_controller) {
      for (const char* controller : {"cpu", "memory"})
        out.push_back(root / controller / path.substr(1));
      return out;
    }
    std::error_code error;
    for (const auto& entry : fs::directory_iterator(root, error)) {
      if (entry.is_directory() && !entry.is_symlink()) out.push_back(entry.path() / path.substr(1));
    }
    return out;
  }

  void prepare_pod_cgroup(const kube::Pod& pod, const PodAllocation& allocated) {
    const std::string path = pod_cgroup_path(pod, options.driver);
    for (const auto& dir : hierarchies(path, false)) fs::create_directories(dir);
    cri::CgroupFiles(options.cgroups, path).write(pod_cgroup_values_for(pod, allocated));
  }

  // All QoS placements: an orphan's QoS class is not known.
  void remove_pod_cgroups(const std::string& uid) {
    for (kube::QosClass qos :
         {kube::QosClass::Guaranteed, kube::QosClass::Burstable, kube::QosClass::BestEffort}) {
      const std::string path = cri::cgroup_path(cri::pod_cgroup_name(uid, qos), options.driver);
      for (const auto& dir : hierarchies(path, true)) {
        std::error_code ignored;  // absent where the pod never had a cgroup
        fs::remove(dir, ignored);
      }
    }
  }

  // ---- sync

  void sync(const RuntimePod& pod, const PodAllocation& allocated) {
    if (!pod.pod.metadata.deletion_timestamp.empty()) return terminate(pod, false);
    auto rec = record(pod.pod.metadata.uid);
    std::lock_guard lock(rec->mutex);
    if (is_terminated(pod.pod.metadata.uid)) return;  // a late event after the teardown
    rec->run = pod.run;
    std::vector<ObservedContainer> observed;
    if (auto failure = ensure_sandbox(*rec, pod, allocated)) {
      for (const auto& container : pod.pod.spec.containers) {
        observed.push_back({.name = container.name,
                            .image = container.image,
                            .waiting_reason = "ContainerCreating",
                            .waiting_message = *failure});
      }
    } else {
      auto attempts = attempts_by_name(runtime.list_containers(in_sandbox(rec->sandbox_id)));
      for (const auto& container : pod.pod.spec.containers) {
        observed.push_back(sync_container(*rec, pod, container, attempts[container.name],
                                          container_amounts(container, allocated)));
      }
    }
    write_status(*rec, pod.pod, observed);
    stop_finished_sandbox(*rec, pod.pod);
  }

  // A pod that reached Succeeded or Failed never runs again: its sandbox is stopped (the kubelet
  // does the same), its containers and status stay until the pod is deleted.
  void stop_finished_sandbox(PodRecord& rec, const kube::Pod& pod) {
    if (rec.sandbox_stopped || !rec.written || rec.sandbox_id.empty()) return;
    if (rec.written->phase != "Succeeded" && rec.written->phase != "Failed") return;
    try {
      runtime.stop_pod_sandbox(rec.sandbox_id);
      rec.sandbox_stopped = true;
    } catch (const cri::CriError& e) {
      kube::log::error(e, "Failed to stop the sandbox of a finished pod", {{"pod", ref(pod)}});
    }
  }

  // nullopt when the sandbox runs, else why it does not.
  std::optional<std::string> ensure_sandbox(PodRecord& rec, const RuntimePod& pod,
                                            const PodAllocation& allocated) {
    if (!rec.sandbox_id.empty()) {
      remember_sandbox(pod.pod, rec.sandbox_id);
      return std::nullopt;
    }
    try {
      prepare_pod_cgroup(pod.pod, allocated);
      const cri::PodSandboxSpec spec = sandbox_spec(pod, options);
      if (!spec.log_directory.empty()) fs::create_directories(spec.log_directory);
      rec.sandbox_id = runtime.run_pod_sandbox(spec);
      remember_sandbox(pod.pod, rec.sandbox_id);
      kube::log::info("Started pod sandbox", {{"pod", ref(pod.pod)}, {"sandbox", rec.sandbox_id}});
      return std::nullopt;
    } catch (const std::exception& e) {
      kube::log::error(e, "Failed to create pod sandbox", {{"pod", ref(pod.pod)}});
      return std::string("Failed to create pod sandbox: ") + e.what();
    }
  }

  cri::ContainerStatus status_of(PodRecord& rec, const std::string& id) {
    if (auto it = rec.exited.find(id); it != rec.exited.end()) return it->second;
    cri::ContainerStatus status = runtime.container_status(id);
    if (status.state == cri::ContainerState::Exited) rec.exited[id] = status;
    return status;
  }

  ObservedContainer sync_container(PodRecord& rec, const RuntimePod& pod,
                                   const kube::Container& container, const Attempts& attempts,
                                   const cri::ResourceAmounts& amounts) {
    ObservedContainer observed{.name = container.name, .image = container.image};
    if (auto it = rec.images.find(container.name); it != rec.images.end())
      observed.image = it->second;
    if (attempts.empty()) {
      start_attempt(rec, pod, container, 0, amounts, attempts, observed);
      return observed;
    }
    const cri::ContainerSummary& latest = attempts.front();
    if (attempts.size() > 1) observed.previous = status_of(rec, attempts[1].id);
    if (latest.state == cri::ContainerState::Created) start_created(latest.id, observed);
    observed.current = status_of(rec, latest.id);
    if (observed.current->state != cri::ContainerState::Exited ||
        !should_restart(pod.pod.spec.restart_policy, observed.current->exit_code)) {
      return observed;
    }
    auto& backoff = rec.backoff
                        .try_emplace(container.name, options.restart_backoff_initial,
                                     options.restart_backoff_max)
                        .first->second;
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
    start_attempt(rec, pod, container, latest.attempt + 1, amounts, attempts, restarted);
    if (!restarted.current)
      restarted.current = observed.current;  // waiting, with the exit as last state
    return restarted;
  }

  void start_created(const std::string& id, ObservedContainer& observed) {
    try {
      runtime.start_container(id);
    } catch (const cri::CriError& e) {
      observed.waiting_reason = "RunContainerError";
      observed.waiting_message = e.what();
    }
  }

  // Creates and starts attempt `attempt`; fills `observed` with the new container's status or
  // with why it could not start. Attempts older than the one before are removed (the kubelet
  // keeps one dead container for lastState).
  void start_attempt(PodRecord& rec, const RuntimePod& pod, const kube::Container& container,
                     std::uint32_t attempt, const cri::ResourceAmounts& amounts,
                     const Attempts& attempts, ObservedContainer& observed) {
    const auto image = images.image_status(container.image);
    if (!image) {
      const int failures = rec.pull_failures[container.name]++;
      observed.waiting_reason = failures == 0 ? "ErrImagePull" : "ImagePullBackOff";
      observed.waiting_message =
          failures == 0 ? "failed to pull image \"" + container.image +
                              "\": not present on the node, and embedded nodes never pull images"
                        : "Back-off pulling image \"" + container.image + "\"";
      return;
    }
    rec.pull_failures.erase(container.name);
    observed.image = image->repo_tags.empty() ? container.image : image->repo_tags.front();
    rec.images[container.name] = observed.image;
    std::string id;
    try {
      const cri::ContainerSpec spec = container_spec(pod, container, attempt, image->id, amounts);
      const cri::PodSandboxSpec sandbox = sandbox_spec(pod, options);
      if (!sandbox.log_directory.empty()) {
        fs::create_directories(fs::path(sandbox.log_directory) / container.name);
      }
      id = runtime.create_container(rec.sandbox_id, spec, sandbox);
    } catch (const std::exception& e) {
      observed.waiting_reason = "CreateContainerError";
      observed.waiting_message = e.what();
      return;
    }
    start_created(id, observed);
    observed.current = status_of(rec, id);
    for (const auto& old : attempts) {
      if (old.attempt + 1 >= attempt) continue;
      try {
        runtime.remove_container(old.id);
        rec.exited.erase(old.id);
      } catch (const cri::CriError& e) {
        kube::log::error(e, "Failed to remove an old container", {{"pod", ref(pod.pod)}});
      }
    }
    kube::log::info("Started container", {{"pod", ref(pod.pod)},
                                          {"container", container.name},
                                          {"attempt", static_cast<std::int64_t>(attempt)}});
  }

  void write_status(PodRecord& rec, const kube::Pod& pod,
                    const std::vector<ObservedContainer>& observed) {
    kube::Pod view = pod;
    if (rec.written) view.status.conditions = rec.written->conditions;
    if (rec.start_time.empty()) {
      rec.start_time = pod.status.start_time.empty() ? now_rfc3339() : pod.status.start_time;
    }
    const kube::PodStatus status = runtime_status(
        view, observed,
        {.host_ip = options.host_ip, .start_time = rec.start_time, .now = now_rfc3339()});
    std::string mine = runtime_status_patch(status);
    if (mine == rec.last_patch) return;
    try {
      if (!patch_status(pod, status)) return;
      rec.last_patch = std::move(mine);
      rec.written = status;
    } catch (const std::exception& e) {
      kube::log::error(e, "Failed to write pod status", {{"pod", ref(pod)}});
    }
  }

  // containerStatuses is written whole, so the resize writer's fields come from the pod as read;
  // a conflict means the pod changed since: read it again and rebuild. False when it is gone.
  bool patch_status(const kube::Pod& pod, const kube::PodStatus& status) {
    std::optional<kube::Pod> base = pod;
    for (int attempt = 0; attempt < 5; ++attempt) {
      if (api.patch_pod_status(*base, runtime_status_patch(status, &base->status,
                                                           base->metadata.resource_version))) {
        return true;
      }
      base = api.get_pod(pod);
      if (!base) return false;
    }
    throw std::runtime_error("pod status kept changing during 5 attempts to write it");
  }

  // ---- teardown

  // Stops running containers in parallel (each may take its grace period), then removes all.
  void kill_containers(const std::vector<cri::ContainerSummary>& containers, std::int64_t grace) {
    std::vector<std::thread> stops;
    for (const auto& container : containers) {
      if (container.state != cri::ContainerState::Running) continue;
      stops.emplace_back([this, id = container.id, grace] {
        try {
          runtime.stop_container(id, grace);
        } catch (const cri::CriError& e) {
          kube::log::error(e, "Failed to stop container", {{"container", id}});
        }
      });
    }
    for (auto& stop : stops) stop.join();
    for (const auto& container : containers) {
      try {
        runtime.remove_container(container.id);
      } catch (const cri::CriError& e) {
        if (e.kind() != cri::CriErrorKind::NotFound)
          kube::log::error(e, "Failed to remove container", {});
      }
    }
  }

  void remove_sandbox(const std::string& sandbox_id) {
    try {
      runtime.stop_pod_sandbox(sandbox_id);
      runtime.remove_pod_sandbox(sandbox_id);
    } catch (const cri::CriError& e) {
      if (e.kind() != cri::CriErrorKind::NotFound)
        kube::log::error(e, "Failed to remove pod sandbox", {});
    }
  }

  // Everything of pod `uid` in the runtime; `sandbox_id` may be empty (found through labels).
  void teardown(const std::string& uid, std::string sandbox_id, std::int64_t grace) {
    const auto containers = runtime.list_containers(of_pod(uid));
    std::set<std::string> sandbox_ids;
    if (!sandbox_id.empty()) sandbox_ids.insert(sandbox_id);
    for (const auto& container : containers) sandbox_ids.insert(container.pod_sandbox_id);
    kill_containers(containers, grace);
    for (const auto& id : sandbox_ids) remove_sandbox(id);
    remove_pod_cgroups(uid);
    std::lock_guard lock(mutex);
    sandboxes.erase(uid);
  }

  void terminate(const RuntimePod& pod, bool deleted_from_api) {
    const std::string& uid = pod.pod.metadata.uid;
    auto rec = record(uid);
    std::lock_guard lock(rec->mutex);
    if (!is_terminated(uid)) {
      const std::int64_t grace = pod.pod.metadata.deletion_grace_period_seconds.value_or(
          pod.run.termination_grace_period_seconds);
      teardown(uid, rec->sandbox_id, grace);
      rec->sandbox_id.clear();
      std::lock_guard map_lock(mutex);
      terminated.insert(uid);
      kube::log::info("Terminated pod", {{"pod", ref(pod.pod)}});
    }
    if (!deleted_from_api) {
      try {
        api.delete_pod(pod.pod);
      } catch (const std::exception& e) {
        kube::log::error(e, "Failed to delete terminated pod", {{"pod", ref(pod.pod)}});
      }
    }
    std::lock_guard map_lock(mutex);
    pods.erase(uid);
  }

  // ---- resizePolicy RestartContainer

  const kube::Container& spec_container(const kube::Pod& pod, const std::string& name) const {
    const kube::Container* container = kube::find_container(pod.spec, name);
    if (!container) {
      throw std::invalid_argument("pod " + pod.metadata.namespace_ + "/" + pod.metadata.name +
                                  " has no container \"" + name + "\"");
    }
    return *container;
  }

  std::string sandbox_of(const PodRecord& rec, const kube::Pod& pod,
                         const std::string& name) const {
    if (rec.sandbox_id.empty()) {
      throw std::runtime_error("restarting container " + name + ": pod " + pod.metadata.namespace_ +
                               "/" + pod.metadata.name + " has no sandbox on this node");
    }
    return rec.sandbox_id;
  }

  // Stops the newest attempt of `name` when it runs.
  void stop_running(const PodRecord& rec, const kube::Pod& pod, const std::string& name,
                    std::int64_t grace) {
    auto attempts =
        attempts_by_name(runtime.list_containers(in_sandbox(sandbox_of(rec, pod, name))));
    const Attempts& mine = attempts[name];
    if (!mine.empty() && mine.front().state == cri::ContainerState::Running) {
      runtime.stop_container(mine.front().id, grace);
    }
  }

  // Starts the attempt after the newest one with `allocated`; throws when it cannot start.
  void start_next(PodRecord& rec, const RuntimePod& pod, const std::string& name,
                  const cri::ResourceAmounts& allocated) {
    const kube::Container& container = spec_container(pod.pod, name);
    auto attempts =
        attempts_by_name(runtime.list_containers(in_sandbox(sandbox_of(rec, pod.pod, name))));
    const Attempts& mine = attempts[name];
    const std::uint32_t attempt = mine.empty() ? 0 : mine.front().attempt + 1;
    ObservedContainer observed{.name = name, .image = container.image};
    start_attempt(rec, pod, container, attempt, allocated, mine, observed);
    if (!observed.waiting_reason.empty()) {
      throw std::runtime_error("restarting container " + name + ": " + observed.waiting_reason +
                               ": " + observed.waiting_message);
    }
    rec.last_patch.clear();  // the next sync reports the new restart count
  }

  void restart_container(const RuntimePod& pod, const std::string& name,
                         const cri::ResourceAmounts& allocated) {
    spec_container(pod.pod, name);
    auto rec = record(pod.pod.metadata.uid);
    std::lock_guard lock(rec->mutex);
    stop_running(*rec, pod.pod, name, pod.run.termination_grace_period_seconds);
    start_next(*rec, pod, name, allocated);
  }

  // The run spec of the last sync: what a restart for a resize needs beyond the Pod model.
  RuntimePod runtime_pod(const PodRecord& rec, const kube::Pod& pod) const {
    if (!rec.run) {
      throw std::runtime_error("pod " + pod.metadata.namespace_ + "/" + pod.metadata.name +
                               " is not run by this node's pod runtime");
    }
    return RuntimePod{pod, *rec.run};
  }

  void stop_for_restart(const kube::Pod& pod, const std::string& name) {
    spec_container(pod, name);
    auto rec = record(pod.metadata.uid);
    std::lock_guard lock(rec->mutex);
    stop_running(*rec, pod, name, runtime_pod(*rec, pod).run.termination_grace_period_seconds);
  }

  void start_after_restart(const kube::Pod& pod, const std::string& name,
                           const cri::ResourceAmounts& allocated) {
    auto rec = record(pod.metadata.uid);
    std::lock_guard lock(rec->mutex);
    start_next(*rec, runtime_pod(*rec, pod), name, allocated);
  }

  void recover() {
    for (const auto& container : runtime.list_containers({})) {
      const auto uid = container.labels.find(kLabelPodUid);
      if (uid == container.labels.end()) continue;
      auto rec = record(uid->second);
      std::lock_guard lock(rec->mutex);
      rec->sandbox_id = container.pod_sandbox_id;
    }
  }

  void remove_orphans(const std::vector<std::string>& live_uids) {
    const std::set<std::string> live(live_uids.begin(), live_uids.end());
    std::set<std::string> orphans;
    for (const auto& container : runtime.list_containers({})) {
      const auto uid = container.labels.find(kLabelPodUid);
      if (uid != container.labels.end() && !live.contains(uid->second)) orphans.insert(uid->second);
    }
    for (const auto& uid : orphans) {
      kube::log::info("Removing the containers of a pod deleted while the agent was away",
                      {{"uid", uid}});
      teardown(uid, "", 0);
      std::lock_guard lock(mutex);
      pods.erase(uid);
    }
  }

  std::optional<RunningPod> running_pod(const std::string& uid) const {
    RunningPod out;
    {
      std::lock_guard lock(mutex);
      const auto it = sandboxes.find(uid);
      if (it == sandboxes.end()) return std::nullopt;
      out = it->second;
    }
    for (const auto& container :
         runtime.list_containers(in_sandbox(out.sandbox_id, cri::ContainerState::Running))) {
      out.containers.push_back({container.name, container.id, container.attempt});
    }
    return out;
  }
};

PodRuntime::PodRuntime(cri::RuntimeService& runtime, cri::ImageService& images, PodApi& api,
                       PodRuntimeOptions options)
    : impl_(std::make_unique<Impl>(runtime, images, api, std::move(options))) {}
PodRuntime::~PodRuntime() = default;

void PodRuntime::sync_pod(const RuntimePod& pod, const PodAllocation& allocated) {
  impl_->sync(pod, allocated);
}
void PodRuntime::terminate_pod(const RuntimePod& pod, bool deleted_from_api) {
  impl_->terminate(pod, deleted_from_api);
}
void PodRuntime::restart_container(const RuntimePod& pod, const std::string& container_name,
                                   const cri::ResourceAmounts& allocated) {
  impl_->restart_container(pod, container_name, allocated);
}
void PodRuntime::stop_for_restart(const kube::Pod& pod, const std::string& name) {
  impl_->stop_for_restart(pod, name);
}
void PodRuntime::start_after_restart(const kube::Pod& pod, const std::string& name,
                                     const cri::ResourceAmounts& allocated) {
  impl_->start_after_restart(pod, name, allocated);
}
void PodRuntime::recover() { impl_->recover(); }
void PodRuntime::remove_orphans(const std::vector<std::string>& live_uids) {
  impl_->remove_orphans(live_uids);
}
std::optional<RunningPod> PodRuntime::running_pod(const std::string& uid) const {
  return impl_->running_pod(uid);
}
std::vector<RunningPod> PodRuntime::running_pods() const {
  std::vector<std::string> uids;
  {
    std::lock_guard lock(impl_->mutex);
    for (const auto& [uid, _] : impl_->sandboxes) uids.push_back(uid);
  }
  std::vector<RunningPod> out;
  for (const auto& uid : uids) {
    if (auto pod = impl_->running_pod(uid)) out.push_back(std::move(*pod));
  }
  return out;
}

}  // namespace tailor::node::runtime
