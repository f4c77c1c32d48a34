#include "kube/http/server_header_deadline.h"

#include <sys/socket.h>

#include <algorithm>

namespace tailor::kube::http {

void HeaderDeadlines::start() {
  if (timeout_.count() <= 0 || thread_.joinable()) return;
  thread_ = std::thread([this] { watch(); });
}

void HeaderDeadlines::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
}

// The timeout is the same for every fd, so a new deadline is never earlier than those already
// armed: the watch needs waking only when it had none (not once per request).
void HeaderDeadlines::arm(int fd) {
  if (timeout_.count() <= 0) return;
  bool was_idle = false;
  {
    std::lock_guard lock(mutex_);
    was_idle = deadlines_.empty();
    deadlines_[fd] = std::chrono::steady_clock::now() + timeout_;
  }
  if (was_idle) changed_.notify_all();
}

void HeaderDeadlines::disarm(int fd) {
  if (timeout_.count() <= 0) return;
  std::lock_guard lock(mutex_);
  deadlines_.erase(fd);
}

// Shuts down, under the lock that disarm() takes, the sockets whose deadline has passed: a
// connection that disarmed first is never cut, and no fd is shut down after its owner let go.
void HeaderDeadlines::watch() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    auto now = std::chrono::steady_clock::now();
    auto next = std::chrono::steady_clock::time_point::max();
    for (auto it = deadlines_.begin(); it != deadlines_.end();) {
      if (it->second <= now) {
        ::shutdown(it->first, SHUT_RD);
        it = deadlines_.erase(it);
      } else {
        next = std::min(next, it->second);
        ++it;
      }
    }
    if (next == std::chrono::steady_clock::time_point::max()) {
      changed_.wait(lock);
    } else {
      changed_.wait_until(lock, next);
    }
  }
}

}  // namespace tailor::kube::http
