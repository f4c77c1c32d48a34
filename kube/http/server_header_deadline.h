// The deadline for a request's headers (Go's http.Server ReadHeaderTimeout; kube-apiserver sets
// 32 s). Asio's blocking reads ignore SO_RCVTIMEO, so a connection still reading its TLS handshake
// or its headers when its deadline passes has its socket shut down for reading by a watch thread:
// the blocked read then ends as if the peer had gone, and the connection's thread returns. Only
// reading is shut down: a deadline passing just after the headers were read (before disarm())
// must not lose the answer to a request its handler already ran, as Go clears only the read
// deadline there.
#pragma once

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>

namespace tailor::kube::http {

class HeaderDeadlines {
 public:
  // timeout zero or less: no deadline (arm() does nothing, no thread is started), as Go.
  // More than a day counts as a day, so that now() + timeout cannot overflow.
  explicit HeaderDeadlines(std::chrono::milliseconds timeout)
      : timeout_(std::min<std::chrono::milliseconds>(timeout, std::chrono::hours(24))) {}
  ~HeaderDeadlines() { stop(); }
  HeaderDeadlines(const HeaderDeadlines&) = delete;
  HeaderDeadlines& operator=(const HeaderDeadlines&) = delete;

  void start();
  void stop();
  // The socket fd must read its handshake or headers within the timeout from now. Its owner
  // calls disarm() before it closes fd, so the watch never shuts down a reused descriptor.
  void arm(int fd);
  void disarm(int fd);

 private:
  void watch();

  std::chrono::milliseconds timeout_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::map<int, std::chrono::steady_clock::time_point> deadlines_;
  bool stopping_ = false;
  std::thread thread_;
};

// Arms a deadline for as long as it lives (a handshake, a request's headers).
class HeaderDeadlineScope {
 public:
  HeaderDeadlineScope(HeaderDeadlines& deadlines, int fd) : deadlines_(deadlines), fd_(fd) {
    deadlines_.arm(fd_);
  }
  ~HeaderDeadlineScope() { deadlines_.disarm(fd_); }
  HeaderDeadlineScope(const HeaderDeadlineScope&) = delete;
  HeaderDeadlineScope& operator=(const HeaderDeadlineScope&) = delete;

 private:
  HeaderDeadlines& deadlines_;
  int fd_;
};

}  // namespace tailor::kube::http
