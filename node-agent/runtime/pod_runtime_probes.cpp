#include "node-agent/runtime/pod_runtime_probes.h"

#include "kube/http/client.h"
#include "kube/observe/log.h"
#include "node-agent/runtime/pod_runtime_records.h"

namespace tailor::node::runtime {
namespace {

using Clock = std::chrono::steady_clock;

Clock::time_point started_at(const cri::ContainerStatus& status, Clock::time_point now) {
  // The runtime reports wall-clock nanoseconds; the probe clock is steady.
  const auto wall_now = std::chrono::system_clock::now().time_since_epoch();
  const auto age = wall_now - std::chrono::nanoseconds(status.started_at_ns);
  return now - std::chrono::duration_cast<Clock::duration>(age);
}

}  // namespace

void record_probe(ProbeCounts& counts, const ProbeSpec& probe, bool success) {
  if (success) {
    counts.failures = 0;
    if (++counts.successes >= probe.success_threshold) counts.healthy = true;
  } else {
    counts.successes = 0;
    if (++counts.failures >= probe.failure_threshold) counts.healthy = false;
  }
}

ProbeGet http_probe_get() {
  return
      [](const std::string& host, int port, const std::string& path, std::chrono::seconds timeout) {
        try {
          kube::http::Client client({.base_url = "http://" + host + ":" + std::to_string(port),
                                     .max_idle_connections = 0});
          const auto response = client.send({.target = path, .timeout = timeout});
          return response.status >= 200 && response.status < 400;
        } catch (const std::exception&) {
          return false;  // refused, reset, timed out: a failure
        }
      };
}

Prober::Prober(cri::RuntimeService& runtime, const PodRuntimeOptions& options)
    : runtime_(runtime),
      options_(options),
      get_(options.probe_get ? options.probe_get : http_probe_get()) {}

bool Prober::run_probe(ProbeCounts& counts, const ProbeSpec& probe, const std::string& pod_ip,
                       const std::string& id, Clock::time_point started) {
  const auto now = options_.now();
  if (counts.container_id != id) {
    counts = {.container_id = id,
              .next = started + std::chrono::seconds(probe.initial_delay_seconds)};
  }
  if (now < counts.next) return false;
  counts.next = now + std::chrono::seconds(probe.period_seconds);
  const std::string& host = probe.host.empty() ? pod_ip : probe.host;
  record_probe(counts, probe,
               get_(host, probe.port, probe.path, std::chrono::seconds(probe.timeout_seconds)));
  return true;
}

void Prober::probe(std::map<std::string, ProbeCounts>& counts, const RuntimePod& pod,
                   const std::string& pod_ip, const ContainerRunSpec& run,
                   ObservedContainer& observed) {
  const auto& current = observed.current;
  const bool running =
      current && current->state == cri::ContainerState::Running && observed.waiting_reason.empty();
  if (run.readiness) {
    ProbeCounts& ready = counts[run.name + "/readiness"];
    if (running)
      run_probe(ready, *run.readiness, pod_ip, current->id, started_at(*current, options_.now()));
    observed.probe_ready = running && ready.container_id == current->id && ready.healthy;
  }
  if (!run.liveness || !running) return;
  ProbeCounts& live = counts[run.name + "/liveness"];
  if (!run_probe(live, *run.liveness, pod_ip, current->id, started_at(*current, options_.now())))
    return;
  if (live.failures < run.liveness->failure_threshold) return;
  kube::log::info("Container failed liveness probe, will be restarted",
                  {{"pod", log_ref(pod.pod)}, {"container", run.name}});
  try {
    runtime_.stop_container(current->id, pod.run.termination_grace_period_seconds);
  } catch (const std::exception& e) {
    kube::log::error(e, "Failed to stop a container that failed its liveness probe",
                     {{"pod", log_ref(pod.pod)}, {"container", run.name}});
  }
}

}  // namespace tailor::node::runtime
