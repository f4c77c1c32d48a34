// Readiness and liveness probes as the kubelet's prober runs them: each on its own period after
// its initial delay, within timeoutSeconds — httpGet: a GET of http://<host>:<port><path> (the
// probe's host, else the pod's IP), 200-399 a success; tcpSocket: a connection to <host>:<port>
// opens; exec: the command (CRI ExecSync) exits 0, a timeout is a failure and a runtime error no
// result (the kubelet's Unknown: counts stay).
// Readiness starts false and flips after successThreshold successes or
// failureThreshold failures in a row; liveness kills the container after failureThreshold
// failures in a row, and restartPolicy restarts it. Results belong to one attempt: a new
// container starts unready with fresh counts. Probes run on the pod's sync, so a period is rounded
// up to the agent's sync interval.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <string>

#include "node-agent/runtime/pod_runtime.h"
#include "node-agent/runtime/pod_runtime_status.h"

namespace tailor::node::runtime {

struct ProbeCounts {
  std::string container_id{};  // the attempt the counts are for
  std::chrono::steady_clock::time_point next{};
  std::int64_t successes = 0;
  std::int64_t failures = 0;
  bool healthy = false;  // readiness: ready (liveness goes by failures alone)
};

// Pure: the counts after one result.
void record_probe(ProbeCounts& counts, const ProbeSpec& probe, bool success);

// The real GET: true for a 2xx or 3xx answer within the timeout.
ProbeGet http_probe_get();
// The real connect: true when a TCP connection opens within the timeout (then closed).
ProbeDial tcp_probe_dial();

class Prober {
 public:
  // `runtime` and `options` must outlive this; options.probe_get, when set, replaces the GET.
  Prober(cri::RuntimeService& runtime, const PodRuntimeOptions& options);

  // Runs the container's due probes: `observed.probe_ready` from readiness; a liveness failure
  // past its threshold stops the running attempt (restartPolicy decides the rest).
  // `pod_ip`: the pod's sandbox IP.
  void probe(std::map<std::string, ProbeCounts>& counts, const RuntimePod& pod,
             const std::string& pod_ip, const ContainerRunSpec& run, ObservedContainer& observed);

 private:
  bool run_probe(ProbeCounts& counts, const ProbeSpec& probe, const std::string& pod_ip,
                 const std::string& id, std::chrono::steady_clock::time_point started);
  // One run of the probe's handler: success, failure, or nullopt when it gave no result.
  std::optional<bool> check(const ProbeSpec& probe, const std::string& pod_ip,
                            const std::string& id);

  cri::RuntimeService& runtime_;
  const PodRuntimeOptions& options_;
  ProbeGet get_;
  ProbeDial dial_;
};

}  // namespace tailor::node::runtime
