// InformerCore's delivery side: the notification queue, the dispatcher thread that calls the
// handlers in order, and the periodic resync.
#include "kube/client/informer_core.h"

namespace tailor::kube::cache {

void InformerCore::enqueue(std::vector<Notification> notifications) {
  if (notifications.empty()) return;
  {
    std::lock_guard lock(mutex_);
    for (auto& notification : notifications) queue_.push_back(std::move(notification));
  }
  changed_.notify_all();
}

void InformerCore::deliver(const Notification& notification) {
  for (const auto& listener : listeners_) {
    try {
      listener(notification);
    } catch (const std::exception& e) {
      report(std::string("event handler threw: ") + e.what());
    }
  }
}

// Delivers notifications in order, and every resync_period re-delivers every stored object
// as an update (so handlers can correct drift from what they did with earlier deliveries).
void InformerCore::dispatch_loop() {
  using Clock = std::chrono::steady_clock;
  const bool resyncing = options_.resync_period.count() > 0;
  auto next_resync = Clock::now() + options_.resync_period;
  std::unique_lock lock(mutex_);
  while (true) {
    auto ready = [this] { return stopping_ || !queue_.empty(); };
    if (resyncing) {
      changed_.wait_until(lock, next_resync, ready);
    } else {
      changed_.wait(lock, ready);
    }
    if (stopping_) return;
    if (!queue_.empty()) {
      Notification notification = std::move(queue_.front());
      queue_.pop_front();
      lock.unlock();
      deliver(notification);
      lock.lock();
      continue;
    }
    if (resyncing && Clock::now() >= next_resync) {
      next_resync = Clock::now() + options_.resync_period;
      if (!synced_) continue;
      lock.unlock();
      for (auto& entry : store_.list()) {
        Notification resync{NotificationKind::Update, entry, entry, false, true};
        deliver(resync);
      }
      lock.lock();
    }
  }
}

}  // namespace tailor::kube::cache
