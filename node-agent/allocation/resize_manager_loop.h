// Runs a ResizeManager on one worker thread: informer callbacks and timers post work to it, so
// the manager itself needs no locking and informer threads never wait on the runtime. Besides
// the events it is given, it retries pending resizes every `retry_period` (a safety net: the
// manager retries at once when capacity may have been freed) and failed actuations when their
// backoff is due.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>

#include "node-agent/allocation/resize_manager.h"

namespace tailor::node::allocation {

class ResizeManagerLoop {
 public:
  using Work = std::function<void(ResizeManager&)>;

  ResizeManagerLoop(ResizeManager& manager,
                    std::chrono::milliseconds retry_period = std::chrono::seconds(60));
  ~ResizeManagerLoop();  // stops; queued work is dropped
  ResizeManagerLoop(const ResizeManagerLoop&) = delete;
  ResizeManagerLoop& operator=(const ResizeManagerLoop&) = delete;

  void start();
  void stop();
  void post(Work work);
  // Runs `work` on the worker and waits for it (for start-up and tests); false on timeout.
  bool run(Work work, std::chrono::milliseconds timeout);
  // Work items done and failed (a failure is logged; the loop carries on).
  std::uint64_t processed() const;

 private:
  void loop();

  ResizeManager& manager_;
  std::chrono::milliseconds retry_period_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Work> queue_;
  bool stopping_ = false;
  std::uint64_t processed_ = 0;
  std::thread worker_;
};

}  // namespace tailor::node::allocation
