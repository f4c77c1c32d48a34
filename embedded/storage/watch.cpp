// Watch subscriptions: a queue per watcher that the store fills under its lock.
#include <condition_variable>
#include <deque>
#include <mutex>

#include "embedded/storage/watch_state.h"

namespace tailor::embedded {

void Watch::State::push(const StoredEvent* event, std::uint64_t resource_version) {
  {
    std::lock_guard lock(mu);
    if (event) queue.push_back(*event);
    progress = resource_version;
  }
  if (event) cv.notify_all();
}

Watch::Watch(std::shared_ptr<State> state) : state_(std::move(state)) {}

Watch::~Watch() { stop(); }

std::vector<StoredEvent> Watch::next(std::chrono::steady_clock::time_point deadline) {
  std::unique_lock lock(state_->mu);
  state_->cv.wait_until(lock, deadline, [&] { return state_->stopped || !state_->queue.empty(); });
  std::vector<StoredEvent> out(std::make_move_iterator(state_->queue.begin()),
                               std::make_move_iterator(state_->queue.end()));
  state_->queue.clear();
  state_->drained = state_->progress;
  return out;
}

std::uint64_t Watch::progress() const {
  std::lock_guard lock(state_->mu);
  return state_->drained;
}

void Watch::stop() {
  {
    std::lock_guard lock(state_->mu);
    state_->stopped = true;
  }
  state_->cv.notify_all();
}

bool Watch::stopped() const {
  std::lock_guard lock(state_->mu);
  return state_->stopped;
}

}  // namespace tailor::embedded
