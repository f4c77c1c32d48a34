#include "node-agent/runtime/pod_runtime_sandbox.h"

#include <set>
#include <thread>

#include "kube/observe/duration.h"
#include "kube/observe/log.h"
#include "node-agent/cri/cgroup_values.h"
#include "node-agent/cri/pod_cgroup.h"
#include "node-agent/runtime/cri_specs.h"

namespace tailor::node::runtime {
namespace {
namespace fs = std::filesystem;

cri::ContainerFilter of_pod(const std::string& uid) {
  cri::ContainerFilter filter;
  filter.label_selector[kLabelPodUid] = uid;
  return filter;
}

}  // namespace

PodSandboxes::PodSandboxes(cri::RuntimeService& runtime, const PodRuntimeOptions& options,
                           PodRecords& records)
    : runtime_(runtime), options_(options), records_(records) {}

void PodSandboxes::remember(const kube::Pod& pod, const std::string& sandbox_id) {
  records_.remember_sandbox({.uid = pod.metadata.uid,
                             .ns = pod.metadata.namespace_,
                             .name = pod.metadata.name,
                             .sandbox_id = sandbox_id,
                             .cgroup_parent = sandbox_cgroup_parent(pod, options_.driver),
                             .cgroup_path = pod_cgroup_path(pod, options_.driver)});
}

std::optional<std::string> PodSandboxes::ensure(PodRecord& rec, const RuntimePod& pod,
                                                const PodAllocation& allocated) {
  if (!rec.sandbox_id.empty()) {
    remember(pod.pod, rec.sandbox_id);
    if (!rec.pod_ip_read) read_pod_ip(rec, pod);  // a sandbox adopted after a restart
    return std::nullopt;
  }
  const auto now = options_.now();
  // A sandbox that failed is not asked for again before its back-off ends (the runtime would
  // otherwise be asked on every sync, many times a second).
  if (rec.sandbox_failure && !rec.sandbox_failure->due(now)) return rec.sandbox_failure->message;
  try {
    remove_leftovers(pod.pod.metadata.uid);
    prepare_pod_cgroup(pod.pod, allocated);
    const cri::PodSandboxSpec spec = sandbox_spec(pod, options_);
    warn_dns(pod);
    if (!spec.log_directory.empty()) fs::create_directories(spec.log_directory);
    rec.sandbox_id = runtime_.run_pod_sandbox(spec);
    rec.sandbox_failure.reset();
    remember(pod.pod, rec.sandbox_id);
    read_pod_ip(rec, pod);
    kube::log::info(
        "Started pod sandbox",
        {{"pod", log_ref(pod.pod)}, {"sandbox", rec.sandbox_id}, {"podIP", rec.pod_ip}});
    return std::nullopt;
  } catch (const std::exception& e) {
    if (!rec.sandbox_failure) {
      rec.sandbox_failure.emplace(
          FailedStep{{options_.restart_backoff_initial, options_.restart_backoff_max}});
    }
    // Counted from the failure: a run that takes long does not eat into the wait.
    rec.sandbox_failure->failed(options_.now(), "ContainerCreating",
                                std::string("Failed to create pod sandbox: ") + e.what());
    kube::log::error(e, "Failed to create pod sandbox",
                     {{"pod", log_ref(pod.pod)},
                      {"backoff", kube::format_duration(rec.sandbox_failure->backoff.delay())}});
    return rec.sandbox_failure->message;
  }
}

void PodSandboxes::warn_dns(const RuntimePod& pod) {
  for (const DnsWarning& warning : sandbox_dns(pod, options_).warnings) {
    kube::log::error(warning.message, {{"pod", log_ref(pod.pod)}, {"reason", warning.reason}});
    if (options_.warn) options_.warn(pod.pod, warning.reason, warning.message);
  }
}

// As the kubelet: a hostNetwork pod's IP is the node's, any other pod's what PodSandboxStatus
// reports of its network. A failed read leaves it unknown, to be read on the next sync.
void PodSandboxes::read_pod_ip(PodRecord& rec, const RuntimePod& pod) {
  if (sandbox_network_mode(pod.run) == cri::NamespaceMode::Node) {
    rec.pod_ip = options_.host_ip;
    rec.pod_ip_read = true;
    return;
  }
  try {
    rec.pod_ip = runtime_.pod_sandbox_status(rec.sandbox_id).ip;
    rec.pod_ip_read = true;
  } catch (const cri::CriError& e) {
    kube::log::error(e, "Failed to read the pod sandbox's IP",
                     {{"pod", log_ref(pod.pod)}, {"sandbox", rec.sandbox_id}});
  }
}

// Sandboxes of the pod the record does not hold: one whose setup failed (containerd keeps it, not
// ready, holding the sandbox's name, so a new one could not run) or one an agent that died made.
// Removed as the kubelet's garbage collector removes a pod's dead sandboxes.
void PodSandboxes::remove_leftovers(const std::string& uid) {
  for (const auto& sandbox : runtime_.list_pod_sandboxes({{kLabelPodUid, uid}})) {
    remove_sandbox(sandbox.id);
  }
}

void PodSandboxes::stop_if_finished(PodRecord& rec, const kube::Pod& pod) {
  if (rec.sandbox_stopped || !rec.written || rec.sandbox_id.empty()) return;
  if (rec.written->phase != "Succeeded" && rec.written->phase != "Failed") return;
  try {
    runtime_.stop_pod_sandbox(rec.sandbox_id);
    rec.sandbox_stopped = true;
  } catch (const cri::CriError& e) {
    kube::log::error(e, "Failed to stop the sandbox of a finished pod", {{"pod", log_ref(pod)}});
  }
}

void PodSandboxes::teardown(const std::string& uid, const std::string& sandbox_id,
                            std::int64_t grace) {
  const auto containers = runtime_.list_containers(of_pod(uid));
  std::set<std::string> sandbox_ids;
  if (!sandbox_id.empty()) sandbox_ids.insert(sandbox_id);
  for (const auto& container : containers) sandbox_ids.insert(container.pod_sandbox_id);
  for (const auto& sandbox : runtime_.list_pod_sandboxes({{kLabelPodUid, uid}}))
    sandbox_ids.insert(sandbox.id);
  kill_containers(containers, grace);
  for (const auto& id : sandbox_ids) remove_sandbox(id);
  remove_pod_cgroups(uid);
  records_.forget_sandbox(uid);
}

// ---- pod cgroup (the agent's own, as it is the kubelet's)

std::vector<fs::path> PodSandboxes::hierarchies(const std::string& path,
                                                bool every_controller) const {
  const fs::path root = options_.cgroups.root;
  if (options_.cgroups.version == cri::CgroupVersion::V2) return {root / path.substr(1)};
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

void PodSandboxes::prepare_pod_cgroup(const kube::Pod& pod, const PodAllocation& allocated) {
  const std::string path = pod_cgroup_path(pod, options_.driver);
  for (const auto& dir : hierarchies(path, false)) fs::create_directories(dir);
  cri::CgroupFiles(options_.cgroups, path).write(pod_cgroup_values_for(pod, allocated));
}

// All QoS placements: an orphan's QoS class is not known.
void PodSandboxes::remove_pod_cgroups(const std::string& uid) {
  for (kube::QosClass qos :
       {kube::QosClass::Guaranteed, kube::QosClass::Burstable, kube::QosClass::BestEffort}) {
    const std::string path = cri::cgroup_path(cri::pod_cgroup_name(uid, qos), options_.driver);
    for (const auto& dir : hierarchies(path, true)) {
      std::error_code ignored;  // absent where the pod never had a cgroup
      fs::remove(dir, ignored);
    }
  }
}

// ---- teardown

// Stops running containers in parallel (each may take its grace period), then removes all.
void PodSandboxes::kill_containers(const std::vector<cri::ContainerSummary>& containers,
                                   std::int64_t grace) {
  std::vector<std::thread> stops;
  for (const auto& container : containers) {
    if (container.state != cri::ContainerState::Running) continue;
    stops.emplace_back([this, id = container.id, grace] {
      try {
        runtime_.stop_container(id, grace);
      } catch (const cri::CriError& e) {
        kube::log::error(e, "Failed to stop container", {{"container", id}});
      }
    });
  }
  for (auto& stop : stops) stop.join();
  for (const auto& container : containers) {
    try {
      runtime_.remove_container(container.id);
    } catch (const cri::CriError& e) {
      if (e.kind() != cri::CriErrorKind::NotFound)
        kube::log::error(e, "Failed to remove container", {});
    }
  }
}

void PodSandboxes::remove_sandbox(const std::string& sandbox_id) {
  try {
    runtime_.stop_pod_sandbox(sandbox_id);
    runtime_.remove_pod_sandbox(sandbox_id);
  } catch (const cri::CriError& e) {
    if (e.kind() != cri::CriErrorKind::NotFound)
      kube::log::error(e, "Failed to remove pod sandbox", {});
  }
}

}  // namespace tailor::node::runtime
