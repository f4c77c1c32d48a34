// The usage stream to the recommender (proto/usage/usage.proto, UsageService.Report): one
// long-lived client stream per agent carrying one UsageReport per window. A recommender that is
// down or restarts costs the reports of that time, never the agent: a failed write drops the
// report, and the next one opens a new stream.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "node-agent/usage/usage_window.h"

namespace tailor::node::usage {

struct UsageStreamOptions {
  std::string endpoint{};  // "host:port" or "unix:///path"
  std::string node_name{};
  std::chrono::milliseconds connect_timeout{std::chrono::seconds(2)};
};

struct UsageStreamStats {
  std::uint64_t sent = 0;     // reports written to a stream
  std::uint64_t dropped = 0;  // reports lost (no connection, write failed)
};

class UsageStream {
 public:
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
