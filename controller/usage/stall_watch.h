// Cuts usage streams that go quiet (issue 16 finding 5). gRPC 1.51 has no per-message deadline:
// a stream that sends one report and then stalls, or trickles a message a byte at a time, holds
// a server thread (one of --usage-max-threads) until its peer vanishes. The watch remembers when
// each stream last delivered a whole report and cancels one that has not for the stall timeout;
// its agent opens a new stream with its next report.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <list>
#include <mutex>
#include <string>
#include <thread>

#include "kube/observe/duration.h"

namespace grpc {
class ServerContext;
}

namespace tailor::controller::usage {

class StallWatch {
  struct Stream;

 public:
  using Clock = std::chrono::steady_clock;

  // timeout <= 0: streams are never cut (no thread is started).
  explicit StallWatch(kube::Duration timeout);
  ~StallWatch();
  StallWatch(const StallWatch&) = delete;
  StallWatch& operator=(const StallWatch&) = delete;

  // A stream under watch while this lives; `delivered` after each whole report. `peer` names
  // the client in the log when the stream is cut.
  class Watched {
   public:
    Watched(StallWatch& watch, grpc::ServerContext& context, std::string peer);
    ~Watched();
    Watched(const Watched&) = delete;
    Watched& operator=(const Watched&) = delete;
    void delivered();

   private:
    StallWatch& watch_;
    const bool on_;  // the watch checks streams (a timeout is set)
    std::list<Stream>::iterator stream_;
  };

  // Streams cut so far.
  std::uint64_t cut() const;

 private:
  struct Stream {
    grpc::ServerContext* context;
    std::string peer;
    Clock::time_point last;
    bool cut = false;
  };

  void run();
  void cut_stalled(Clock::time_point now);

  const kube::Duration timeout_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::list<Stream> streams_;
  std::uint64_t cut_count_ = 0;
  std::thread thread_;
};

}  // namespace tailor::controller::usage
