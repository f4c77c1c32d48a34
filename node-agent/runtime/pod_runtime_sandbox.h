// A pod's sandbox and pod cgroup in the embedded runtime, kept as the kubelet keeps them: the pod
// cgroup (the agent's own) made and sized before the sandbox runs in it; the sandbox of a pod
// that finished stopped; and at the end everything of the pod torn down: its containers stopped
// in parallel within the grace period and removed, its sandboxes removed, its pod cgroup removed
// from every QoS place.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "node-agent/cri/cri_client.h"
#include "node-agent/runtime/pod_runtime.h"
#include "node-agent/runtime/pod_runtime_records.h"

namespace tailor::node::runtime {

class PodSandboxes {
 public:
  // All must outlive this.
  PodSandboxes(cri::RuntimeService& runtime, const PodRuntimeOptions& options, PodRecords& records);

  // Runs the pod's sandbox (in its pod cgroup, made first) unless `rec` has one, and keeps its IP
  // in `rec`; nullopt when the sandbox runs, else why it does not.
  std::optional<std::string> ensure(PodRecord& rec, const RuntimePod& pod,
                                    const PodAllocation& allocated);

  // A pod that reached Succeeded or Failed never runs again: its sandbox is stopped (the kubelet
  // does the same), its containers and status stay until the pod is deleted.
  void stop_if_finished(PodRecord& rec, const kube::Pod& pod);

  // Everything of pod `uid` in the runtime; `sandbox_id` may be empty (found through labels).
  void teardown(const std::string& uid, const std::string& sandbox_id, std::int64_t grace);

 private:
  void remember(const kube::Pod& pod, const std::string& sandbox_id);
  void read_pod_ip(PodRecord& rec, const RuntimePod& pod);
  // The kubelet's DNSConfigForming / MissingClusterDNS warnings for the sandbox's DNS config: an
  // event on the pod (options.warn) and a log line.
  void warn_dns(const RuntimePod& pod);
  void remove_leftovers(const std::string& uid);

  // The pod cgroup's directory in each hierarchy: cpu and memory, or every controller.
  std::vector<std::filesystem::path> hierarchies(const std::string& path,
                                                 bool every_controller) const;
  void prepare_pod_cgroup(const kube::Pod& pod, const PodAllocation& allocated);
  void remove_pod_cgroups(const std::string& uid);

  void kill_containers(const std::vector<cri::ContainerSummary>& containers, std::int64_t grace);
  void remove_sandbox(const std::string& sandbox_id);

  cri::RuntimeService& runtime_;
  const PodRuntimeOptions& options_;
  PodRecords& records_;
};

}  // namespace tailor::node::runtime
