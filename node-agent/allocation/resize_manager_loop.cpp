#include "node-agent/allocation/resize_manager_loop.h"

#include <future>

#include "kube/observe/log.h"

namespace tailor::node::allocation {

ResizeManagerLoop::ResizeManagerLoop(ResizeManager& manager, std::chrono::milliseconds retry_period)
    : manager_(manager), retry_period_(retry_period) {}

ResizeManagerLoop::~ResizeManagerLoop() { stop(); }

void ResizeManagerLoop::start() {
  std::lock_guard lock(mutex_);
  if (worker_.joinable()) return;
  stopping_ = false;
  worker_ = std::thread([this] { loop(); });
}

void ResizeManagerLoop::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  if (worker_.joinable()) worker_.join();
}

void ResizeManagerLoop::post(Work work) {
  {
    std::lock_guard lock(mutex_);
    queue_.push_back(std::move(work));
  }
  changed_.notify_all();
}

bool ResizeManagerLoop::run(Work work, std::chrono::milliseconds timeout) {
  auto done = std::make_shared<std::promise<void>>();
  auto future = done->get_future();
  post([work = std::move(work), done](ResizeManager& manager) {
    try {
      work(manager);
    } catch (...) {
      done->set_value();
      throw;
    }
    done->set_value();
  });
  return future.wait_for(timeout) == std::future_status::ready;
}

std::uint64_t ResizeManagerLoop::processed() const {
  std::lock_guard lock(mutex_);
  return processed_;
}

void ResizeManagerLoop::loop() {
  using Clock = std::chrono::system_clock;
  auto next_periodic = Clock::now() + retry_period_;
  std::optional<kube::TimePoint> next_failed;
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    auto wake = next_periodic;
    if (next_failed && *next_failed < wake)
      wake = std::chrono::time_point_cast<Clock::duration>(*next_failed);
    changed_.wait_until(lock, wake, [&] { return stopping_ || !queue_.empty(); });
    if (stopping_) break;
    std::deque<Work> batch;
    batch.swap(queue_);
    lock.unlock();
    for (Work& work : batch) {
      try {
        work(manager_);
      } catch (const std::exception& e) {
        kube::log::error(e, "Resize manager work failed");
      }
    }
    const auto now = Clock::now();
    try {
      if (now >= next_periodic) {
        manager_.retry_pending(RetryTrigger::Periodic);
        next_periodic = now + retry_period_;
      }
      next_failed = manager_.retry_failed();
    } catch (const std::exception& e) {
      kube::log::error(e, "Resize manager retry failed");
    }
    lock.lock();
    processed_ += batch.size();
  }
}

}  // namespace tailor::node::allocation
