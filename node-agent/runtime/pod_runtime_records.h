// The embedded pod runtime's bookkeeping. Each pod has a record, held for a whole sync, teardown
// or restart of that pod: its sandbox, the images it resolved, its restart back-offs, the runtime
// failures it retries with back-off and the status it last wrote. Beside the records, under one
// mutex never held over a CRI call: the sandboxes that run (what running_pod reports) and the pods
// already torn down (so a late event does not start them again).
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "kube/model/pod.h"
#include "kube/observe/log_entry.h"
#include "node-agent/cri/cri_client.h"
#include "node-agent/runtime/pod_runtime.h"
#include "node-agent/runtime/pod_runtime_probes.h"
#include "node-agent/runtime/pod_runtime_restart.h"
#include "node-agent/runtime/pod_volumes.h"

namespace tailor::node::runtime {

struct PodRecord {
  std::mutex mutex;  // held for a whole sync/terminate of this pod
  std::string sandbox_id;
  std::string pod_ip;  // the sandbox's (the node's for hostNetwork pods); "" while unknown
  // The sandbox's IP was read: fixed once it runs, so not asked for again (a stopped sandbox,
  // adopted after a restart, reports none).
  bool pod_ip_read = false;
  std::string start_time;
  std::map<std::string, RestartBackoff> backoff;
  // Runtime failures retried with back-off: the sandbox's, and each container's create or start.
  std::optional<FailedStep> sandbox_failure;
  std::map<std::string, FailedStep> start_failures;
  std::map<std::string, int> pull_failures;
  std::map<std::string, std::string> images;           // resolved names, by container
  std::map<std::string, cri::ContainerStatus> exited;  // exited attempts never change, by id
  std::optional<kube::PodStatus> written;
  std::optional<PodRunSpec> run;  // of the last sync
  PodVolumeState volumes;
  std::map<std::string, ProbeCounts> probes;  // "<container>/readiness", "<container>/liveness"
  std::string last_patch;
  bool sandbox_stopped = false;
};

class PodRecords {
 public:
  // The record of pod `uid`, made on first use.
  std::shared_ptr<PodRecord> record(const std::string& uid);
  void forget(const std::string& uid);

  bool is_terminated(const std::string& uid) const;
  void mark_terminated(const std::string& uid);

  // A pod's sandbox runs: `sandbox` names the pod, the sandbox and its cgroup (no containers).
  void remember_sandbox(RunningPod sandbox);
  void forget_sandbox(const std::string& uid);
  std::optional<RunningPod> sandbox(const std::string& uid) const;
  std::vector<std::string> sandbox_uids() const;

 private:
  mutable std::mutex mutex_;
  std::map<std::string, std::shared_ptr<PodRecord>> pods_;
  std::map<std::string, RunningPod> sandboxes_;  // uid -> sandbox and cgroup parent
  std::set<std::string> terminated_;
};

// How log lines name the pod.
inline kube::log::ObjectRef log_ref(const kube::Pod& pod) {
  return kube::log::kobj(pod.metadata.namespace_, pod.metadata.name);
}

}  // namespace tailor::node::runtime
