#include "node-agent/runtime/pod_runtime_probes.h"

#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

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

// A non-blocking connect to each address of host:port until one opens within the time left.
bool connects(const std::string& host, int port, std::chrono::seconds timeout) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found) != 0) return false;
  const auto deadline = Clock::now() + timeout;
  bool open = false;
  for (addrinfo* a = found; a && !open && Clock::now() < deadline; a = a->ai_next) {
    const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) continue;
    if (::connect(fd, a->ai_addr, a->ai_addrlen) == 0) {
      open = true;
    } else if (errno == EINPROGRESS) {
      pollfd p{.fd = fd, .events = POLLOUT, .revents = 0};
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      int error = 0;
      socklen_t size = sizeof error;
      open = ::poll(&p, 1, static_cast<int>(std::max<std::int64_t>(left.count(), 0))) == 1 &&
             ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size) == 0 && error == 0;
    }
    ::close(fd);
  }
  ::freeaddrinfo(found);
  return open;
}

}  // namespace

ProbeDial tcp_probe_dial() { return connects; }

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
      get_(options.probe_get ? options.probe_get : http_probe_get()),
      dial_(options.probe_dial ? options.probe_dial : tcp_probe_dial()) {}

std::optional<bool> Prober::check(const ProbeSpec& probe, const std::string& pod_ip,
                                  const std::string& id) {
  const std::string& host = probe.host.empty() ? pod_ip : probe.host;
  const std::chrono::seconds timeout(probe.timeout_seconds);
  switch (probe.kind) {
    case ProbeSpec::Kind::HttpGet:
      return get_(host, probe.port, probe.path, timeout);
    case ProbeSpec::Kind::TcpSocket:
      return dial_(host, probe.port, timeout);
    case ProbeSpec::Kind::Exec:
      try {
        return runtime_.exec_sync(id, probe.command, timeout) == 0;
      } catch (const cri::CriError& e) {
        if (e.kind() == cri::CriErrorKind::Timeout) return false;  // "command timed out"
        kube::log::error(e, "Exec probe could not run", {{"container", id}});
        return std::nullopt;
      }
  }
  return std::nullopt;
}

bool Prober::run_probe(ProbeCounts& counts, const ProbeSpec& probe, const std::string& pod_ip,
                       const std::string& id, Clock::time_point started) {
  const auto now = options_.now();
  if (counts.container_id != id) {
    counts = {.container_id = id,
              .next = started + std::chrono::seconds(probe.initial_delay_seconds)};
  }
  if (now < counts.next) return false;
  counts.next = now + std::chrono::seconds(probe.period_seconds);
  if (const auto result = check(probe, pod_ip, id)) record_probe(counts, probe, *result);
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
