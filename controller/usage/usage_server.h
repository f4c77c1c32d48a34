// The recommender's end of the usage stream: a gRPC server (proto/usage/usage.proto) that node
// agents stream their per-container usage windows to. Only node agents may stream (mutual TLS:
// a client certificate from the usage CA naming the agent's node, usage_trust.h), and each
// window is checked before it reaches the recommender: one beyond the stream's rate limit, about
// a pod not bound to the agent's node, or with NaN, negative or absurd values or times out of
// order, is dropped and counted (tailor_controller_usage_windows_rejected_total{reason}), never
// folded into a histogram.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "controller/usage/usage_limits.h"
#include "controller/usage/usage_trust.h"

namespace tailor::controller::usage {

class StreamedContainers;

// One container's usage over one window, as plain values.
struct UsageWindow {
  std::string node;
  std::string ns;
  std::string pod;
  std::string pod_uid;
  std::string container;
  std::int64_t start_unix_ms = 0;
  std::int64_t end_unix_ms = 0;
  std::uint32_t samples = 0;
  double cpu_cores_mean = 0;
  double cpu_cores_max = 0;
  double memory_working_set_max_bytes = 0;
  double memory_peak_bytes = 0;
  std::uint32_t oom_kills = 0;
};

// Why a window is unusable ("" when it is fine). `now_unix_ms` bounds how far in the future a
// window may end (clock skew between nodes is tolerated up to a few minutes).
// (usage_report.cpp, with the rest of reading a report.)
std::string window_problem(const UsageWindow& window, std::int64_t now_unix_ms);

using UsageSink = std::function<void(const UsageWindow&)>;

// The address to listen on: the flag when given, else the pod's IP (IPv6 in brackets) on `port`,
// else loopback — never every address unless asked for.
std::string usage_bind_address(const std::string& flag, const std::string& pod_ip, int port);

// The server's TLS material (PEM files, read at start).
struct UsageTlsFiles {
  std::string cert_file;
  std::string key_file;
  // The usage CA: an agent's client certificate must chain to it, or the handshake fails.
  std::string client_ca_file;
};

// spec.nodeName of a pod as the controller's informer has it ("" while unscheduled); nullopt
// when the informer has no such pod. Called on gRPC threads.
using PodNodeLookup =
    std::function<std::optional<std::string>(const std::string& ns, const std::string& pod)>;

struct UsageServerOptions {
  std::string address = "127.0.0.1:0";  // host:port; port 0 picks a free one
  std::size_t max_message_bytes = 4 << 20;
  UsageTlsFiles tls{};  // all three required unless insecure
  // Plaintext and no client identity: the node a report claims is believed. Tests and
  // development only; never the default.
  bool insecure = false;
  // Where windows are checked against the pods' nodes (empty: not checked — the stream's own
  // tests, which have no informer).
  PodNodeLookup pod_node{};
  // Each stream's budget: windows per second, and the burst a stream may send at once (an agent
  // reports all its containers every --usage-report-interval). <= 0: unlimited.
  double windows_per_second = 100;
  int windows_burst = 5000;
  // Where each usable window is recorded, so that the metrics.k8s.io poller skips the containers
  // an agent streams (nullptr: no poller, nothing recorded).
  StreamedContainers* streamed = nullptr;
  // Connections, streams, threads and memory the server may take (usage_limits.h).
  UsageLimits limits{};
};

struct UsageStats {
  std::uint64_t reports = 0;
  std::uint64_t windows = 0;
  std::uint64_t dropped = 0;                              // all rejected windows
  std::array<std::uint64_t, kRejectionCount> rejected{};  // by Rejection
  std::uint64_t streams_cut = 0;                          // for stalling (stall_watch.h)
  // The gate on the usage port (usage_gate.h; zero without one): connections held now, and
  // those closed for sending nothing within the handshake timeout.
  std::uint64_t connections = 0;
  std::uint64_t silent_closed = 0;

  std::uint64_t rejected_for(Rejection r) const { return rejected[static_cast<std::size_t>(r)]; }
};

class UsageServer {
 public:
  // The sink is called on gRPC threads; it must be thread-safe and quick.
  UsageServer(UsageServerOptions options, UsageSink sink);
  ~UsageServer();
  UsageServer(const UsageServer&) = delete;
  UsageServer& operator=(const UsageServer&) = delete;

  // Throws std::invalid_argument when TLS files are missing (and not insecure),
  // std::runtime_error when it cannot read them or cannot listen.
  void start();
  void stop();
  int port() const;
  UsageStats stats() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tailor::controller::usage
