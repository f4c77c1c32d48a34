// The recommender's end of the usage stream: a gRPC server (proto/usage/usage.proto) that node
// agents stream their per-container usage windows to. Each window is checked before it reaches
// the recommender: a window with NaN, negative or absurd values, or times out of order, is
// dropped and counted, never folded into a histogram.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

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
std::string window_problem(const UsageWindow& window, std::int64_t now_unix_ms);

using UsageSink = std::function<void(const UsageWindow&)>;

struct UsageServerOptions {
  std::string address = "0.0.0.0:0";  // host:port; port 0 picks a free one
  std::size_t max_message_bytes = 4 << 20;
  // Where each usable window is recorded, so that the metrics.k8s.io poller skips the containers
  // an agent streams (nullptr: no poller, nothing recorded).
  StreamedContainers* streamed = nullptr;
};

struct UsageStats {
  std::uint64_t reports = 0;
  std::uint64_t windows = 0;
  std::uint64_t dropped = 0;
};

class UsageServer {
 public:
  // The sink is called on gRPC threads; it must be thread-safe and quick.
  UsageServer(UsageServerOptions options, UsageSink sink);
  ~UsageServer();
  UsageServer(const UsageServer&) = delete;
  UsageServer& operator=(const UsageServer&) = delete;

  void start();  // throws std::runtime_error when it cannot listen
  void stop();
  int port() const;
  UsageStats stats() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tailor::controller::usage
