#include "controller/usage/stall_watch.h"

#include <grpcpp/server_context.h>

#include <algorithm>
#include <utility>

#include "kube/observe/log.h"
#include "kube/observe/metrics.h"

namespace tailor::controller::usage {
namespace {

// Checks a few times per timeout, at least once a second: a stream is cut at most a quarter
// of the timeout (or 1 s) late.
kube::Duration check_period(kube::Duration timeout) {
  return std::clamp<kube::Duration>(timeout / 4, std::chrono::milliseconds(10),
                                    std::chrono::seconds(1));
}

// tailor_controller_usage_streams_cut_total, over every watch of the process.
prometheus::Counter& cut_counter() {
  static prometheus::Counter& counter =
      kube::metrics::registry()
          .counter({.subsystem = "controller",
                    .name = "usage_streams_cut_total",
                    .help = "Usage streams cancelled for delivering no whole report within "
                            "--usage-stall-timeout."})
          .with();
  return counter;
}

}  // namespace

StallWatch::StallWatch(kube::Duration timeout) : timeout_(timeout) {
  cut_counter();  // at zero from the start
  if (timeout_ > kube::Duration::zero()) thread_ = std::thread([this] { run(); });
}

StallWatch::~StallWatch() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void StallWatch::run() {
  std::unique_lock lock(mutex_);
  while (!wake_.wait_for(lock, check_period(timeout_), [this] { return stopping_; })) {
    cut_stalled(Clock::now());
  }
}

// Called with mutex_ held: a registered stream's context lives until it unregisters, which
// takes the same lock.
void StallWatch::cut_stalled(Clock::time_point now) {
  for (Stream& s : streams_) {
    if (s.cut || now - s.last < timeout_) continue;
    s.cut = true;
    ++cut_count_;
    cut_counter().Increment();
    kube::log::warning("Usage stream cut: no whole report within the stall timeout",
                       {{"peer", s.peer}});
    s.context->TryCancel();
  }
}

std::uint64_t StallWatch::cut() const {
  std::lock_guard lock(mutex_);
  return cut_count_;
}

StallWatch::Watched::Watched(StallWatch& watch, grpc::ServerContext& context, std::string peer)
    : watch_(watch), on_(watch.thread_.joinable()) {
  if (!on_) return;  // the watch is off: nothing would ever look at the stream
  std::lock_guard lock(watch_.mutex_);
  stream_ =
      watch_.streams_.insert(watch_.streams_.end(), {&context, std::move(peer), Clock::now()});
}

StallWatch::Watched::~Watched() {
  if (!on_) return;
  std::lock_guard lock(watch_.mutex_);
  watch_.streams_.erase(stream_);
}

void StallWatch::Watched::delivered() {
  if (!on_) return;
  std::lock_guard lock(watch_.mutex_);
  stream_->last = Clock::now();
}

}  // namespace tailor::controller::usage
