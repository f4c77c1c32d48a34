// The usage stream to the recommender (proto/usage/usage.proto, UsageService.Report): one
// long-lived client stream per agent carrying one UsageReport per window. A recommender that is
// down or restarts costs the reports of that time, never the agent: a failed write drops the
// report, and the next one opens a new stream. The agent authenticates with a client certificate
// naming its node (CN=system:node:<nodeName>, O=system:nodes) and checks the controller's
// certificate against the usage CA; plaintext only when asked for (tests, development).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "node-agent/usage/usage_window.h"

namespace tailor::node::usage {

// PEM files, read when the stream is made.
struct UsageStreamTls {
  std::string ca_file{};    // the usage CA, which signed the controller's certificate
  std::string cert_file{};  // this agent's client certificate
  std::string key_file{};
  std::string server_name{};  // the name to check the controller's certificate for; "": the host
};

struct UsageStreamOptions {
  std::string endpoint{};  // "host:port" or "unix:///path"
  std::string node_name{};
  UsageStreamTls tls{};  // all three files required unless insecure
  bool insecure = false;
  std::chrono::milliseconds connect_timeout{std::chrono::seconds(2)};
};

struct UsageStreamStats {
  std::uint64_t sent = 0;     // reports written to a stream
  std::uint64_t dropped = 0;  // reports lost (no connection, write failed)
};

class UsageStream {
 public:
  // Throws std::invalid_argument for an empty endpoint or missing TLS files (unless insecure),
  // std::runtime_error when a file cannot be read.
  explicit UsageStream(UsageStreamOptions options);
  ~UsageStream();  // closes the stream

  // Sends one report of these windows; false when it was dropped.
  bool send(const std::vector<UsageWindow>& windows);
  // Closes the current stream and waits for the recommender's answer (reports it counted);
  // nullopt when there was no stream or it failed.
  std::optional<std::uint64_t> close();
  UsageStreamStats stats() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tailor::node::usage
