// PodRuntime: the embedded node's pod workers, one call per pod event or periodic pass. The jobs
// are apart: the bookkeeping (pod_runtime_records.h), sandbox, pod cgroup and teardown
// (pod_runtime_sandbox.h), container start (pod_runtime_start.h), restarts by restartPolicy with
// back-off (pod_runtime_container_sync.h) and for a resize (pod_runtime_resize_restart.h), and the
// status write (pod_runtime_status_writer.h). Here: which of them a call runs, under which locks.
#include "node-agent/runtime/pod_runtime.h"

#include <mutex>
#include <set>

#include "kube/observe/log.h"
#include "node-agent/runtime/cri_specs.h"
#include "node-agent/runtime/pod_runtime_container_sync.h"
#include "node-agent/runtime/pod_runtime_probes.h"
#include "node-agent/runtime/pod_runtime_records.h"
#include "node-agent/runtime/pod_runtime_resize_restart.h"
#include "node-agent/runtime/pod_runtime_sandbox.h"
#include "node-agent/runtime/pod_runtime_start.h"
#include "node-agent/runtime/pod_runtime_status_writer.h"

namespace tailor::node::runtime {
namespace {

// Why no container of the pod runs yet: its sandbox does not.
std::vector<ObservedContainer> creating(const kube::Pod& pod, const std::string& failure) {
  std::vector<ObservedContainer> observed;
  for (const auto& container : pod.spec.containers) {
    observed.push_back({.name = container.name,
                        .image = container.image,
                        .waiting_reason = "ContainerCreating",
                        .waiting_message = failure});
  }
  return observed;
}

}  // namespace

struct PodRuntime::Impl {
  Impl(cri::RuntimeService& r, cri::ImageService& i, PodApi& a, PodRuntimeOptions o)
      : runtime(r),
        api(a),
        options(std::move(o)),
        sandboxes(r, options, records),
        volumes(a, options),
        starter(r, i, options),
        prober(r, options),
        resize_restart(r, starter),
        status(a, options) {}
  cri::RuntimeService& runtime;
  PodApi& api;
  const PodRuntimeOptions options;
  PodRecords records;
  PodSandboxes sandboxes;
  PodVolumes volumes;
  ContainerStarter starter;
  Prober prober;
  ResizeRestart resize_restart;
  RuntimeStatusWriter status;

  void sync(const RuntimePod& pod, const PodAllocation& allocated) {
    if (!pod.pod.metadata.deletion_timestamp.empty()) return terminate(pod, false);
    auto rec = records.record(pod.pod.metadata.uid);
    std::lock_guard lock(rec->mutex);
    if (records.is_terminated(pod.pod.metadata.uid)) return;  // a late event after the teardown
    rec->run = pod.run;
    auto failure = volumes.ensure(pod, rec->volumes);
    if (!failure) failure = sandboxes.ensure(*rec, pod, allocated);
    const auto observed =
        failure ? creating(pod.pod, *failure) : sync_containers(*rec, pod, allocated);
    status.write(*rec, pod.pod, observed);
    sandboxes.stop_if_finished(*rec, pod.pod);
  }

  std::vector<ObservedContainer> sync_containers(PodRecord& rec, const RuntimePod& pod,
                                                 const PodAllocation& allocated) {
    auto attempts = attempts_in(runtime, rec.sandbox_id);
    std::vector<ObservedContainer> observed;
    for (const auto& container : pod.pod.spec.containers) {
      observed.push_back(sync_container(starter, options, rec, pod, container,
                                        attempts[container.name],
                                        container_amounts(container, allocated)));
      if (const ContainerRunSpec* run = run_spec_of(pod.run, container.name)) {
        prober.probe(rec.probes, pod, rec.pod_ip, *run, observed.back());
      }
    }
    return observed;
  }

  void terminate(const RuntimePod& pod, bool deleted_from_api) {
    const std::string& uid = pod.pod.metadata.uid;
    auto rec = records.record(uid);
    std::lock_guard lock(rec->mutex);
    if (!records.is_terminated(uid)) {
      const std::int64_t grace = pod.pod.metadata.deletion_grace_period_seconds.value_or(
          pod.run.termination_grace_period_seconds);
      sandboxes.teardown(uid, rec->sandbox_id, grace);
      volumes.remove(uid);
      rec->sandbox_id.clear();
      rec->pod_ip.clear();
      rec->pod_ip_read = false;
      records.mark_terminated(uid);
      kube::log::info("Terminated pod", {{"pod", log_ref(pod.pod)}});
    }
    if (!deleted_from_api) {
      try {
        api.delete_pod(pod.pod);
      } catch (const std::exception& e) {
        kube::log::error(e, "Failed to delete terminated pod", {{"pod", log_ref(pod.pod)}});
      }
    }
    records.forget(uid);
  }

  void restart_container(const RuntimePod& pod, const std::string& name,
                         const cri::ResourceAmounts& allocated) {
    spec_container(pod.pod, name);
    auto rec = records.record(pod.pod.metadata.uid);
    std::lock_guard lock(rec->mutex);
    resize_restart.stop_running(*rec, pod.pod, name, pod.run.termination_grace_period_seconds);
    resize_restart.start_next(*rec, pod, name, allocated);
  }

  void stop_for_restart(const kube::Pod& pod, const std::string& name) {
    spec_container(pod, name);
    auto rec = records.record(pod.metadata.uid);
    std::lock_guard lock(rec->mutex);
    resize_restart.stop_running(*rec, pod, name,
                                runtime_pod(*rec, pod).run.termination_grace_period_seconds);
  }

  void start_after_restart(const kube::Pod& pod, const std::string& name,
                           const cri::ResourceAmounts& allocated) {
    auto rec = records.record(pod.metadata.uid);
    std::lock_guard lock(rec->mutex);
    resize_restart.start_next(*rec, runtime_pod(*rec, pod), name, allocated);
  }

  void recover() {
    for (const auto& container : runtime.list_containers({})) {
      const auto uid = container.labels.find(kLabelPodUid);
      if (uid == container.labels.end()) continue;
      auto rec = records.record(uid->second);
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
      sandboxes.teardown(uid, "", 0);
      volumes.remove(uid);
      records.forget(uid);
    }
  }

  std::optional<RunningPod> running_pod(const std::string& uid) const {
    std::optional<RunningPod> out = records.sandbox(uid);
    if (!out) return std::nullopt;
    for (const auto& container :
         runtime.list_containers(in_sandbox(out->sandbox_id, cri::ContainerState::Running))) {
      out->containers.push_back({container.name, container.id, container.attempt});
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
  std::vector<RunningPod> out;
  for (const auto& uid : impl_->records.sandbox_uids()) {
    if (auto pod = impl_->running_pod(uid)) out.push_back(std::move(*pod));
  }
  return out;
}

}  // namespace tailor::node::runtime
