#include "kube/http/server_read_deadline.h"

#include <sys/socket.h>

#include <algorithm>

namespace tailor::kube::http {

void ReadDeadlines::start() {
  if (thread_.joinable()) return;
  thread_ = std::thread([this] { watch(); });
}

void ReadDeadlines::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
}

// The watch is woken only by a deadline earlier than the one it waits for (not once per
// request: most deadlines are armed behind others of the same length).
void ReadDeadlines::arm(int fd, std::chrono::milliseconds timeout) {
  if (timeout.count() <= 0) return;
  auto at = std::chrono::steady_clock::now() +
            std::min<std::chrono::milliseconds>(timeout, std::chrono::hours(24));
  bool sooner = false;
  {
    std::lock_guard lock(mutex_);
    deadlines_[fd] = Deadline{at};
    sooner = at < next_wake_;
    if (sooner) next_wake_ = at;
  }
  if (sooner) changed_.notify_all();
}

bool ReadDeadlines::release(int fd) {
  std::lock_guard lock(mutex_);
  auto it = deadlines_.find(fd);
  if (it == deadlines_.end()) return false;
  bool passed = it->second.passed;
  deadlines_.erase(it);
  return passed;
}

// Shuts down, under the lock that release() takes, the sockets whose deadline has passed: a
// connection that released first is never cut, and no fd is shut down after its owner let go.
void ReadDeadlines::watch() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    auto now = std::chrono::steady_clock::now();
    next_wake_ = std::chrono::steady_clock::time_point::max();
    for (auto& [fd, deadline] : deadlines_) {
      if (deadline.passed) continue;
      if (deadline.at <= now) {
        ::shutdown(fd, SHUT_RD);
        deadline.passed = true;
      } else {
        next_wake_ = std::min(next_wake_, deadline.at);
      }
    }
    if (next_wake_ == std::chrono::steady_clock::time_point::max()) {
      changed_.wait(lock);
    } else {
      changed_.wait_until(lock, next_wake_);
    }
  }
}

}  // namespace tailor::kube::http
