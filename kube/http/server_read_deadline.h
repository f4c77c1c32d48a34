// Deadlines for reading a request: its TLS handshake and headers (Go's http.Server
// ReadHeaderTimeout; kube-apiserver sets 32 s) and its body (kube-apiserver's request timeout,
// 60 s). Asio's blocking reads ignore SO_RCVTIMEO, so a connection still reading when its
// deadline passes has its socket shut down for reading by a watch thread: the blocked read then
// ends as if the peer had gone, and the connection's thread returns or answers. Only reading is
// shut down: a deadline passing just after a request was read (before release()) must not lose
// the answer to a request its handler already ran, and a body cut by its deadline still gets a
// status, as Go clears only the read deadline.
#pragma once

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>

namespace tailor::kube::http {

class ReadDeadlines {
 public:
  ReadDeadlines() = default;
  ~ReadDeadlines() { stop(); }
  ReadDeadlines(const ReadDeadlines&) = delete;
  ReadDeadlines& operator=(const ReadDeadlines&) = delete;

  void start();
  void stop();
  // The socket fd must finish its read within `timeout` from now; zero or less: no deadline,
  // as Go; more than a day counts as a day, so that now() + timeout cannot overflow. Its owner
  // calls release() before it closes fd, so the watch never shuts down a reused descriptor.
  void arm(int fd, std::chrono::milliseconds timeout);
  // Ends fd's deadline; true when it had passed (and fd's reading was shut down).
  bool release(int fd);

 private:
  struct Deadline {
    std::chrono::steady_clock::time_point at;
    bool passed = false;
  };
  void watch();

  std::mutex mutex_;
  std::condition_variable changed_;
  std::map<int, Deadline> deadlines_;
  // When the watch wakes next (max: it waits for an arm()); an earlier deadline wakes it.
  std::chrono::steady_clock::time_point next_wake_ = std::chrono::steady_clock::time_point::max();
  bool stopping_ = false;
  std::thread thread_;
};

// Arms a deadline for as long as it lives (a handshake, a request's headers, its body).
class ReadDeadlineScope {
 public:
  ReadDeadlineScope(ReadDeadlines& deadlines, int fd, std::chrono::milliseconds timeout)
      : deadlines_(deadlines), fd_(fd) {
    deadlines_.arm(fd_, timeout);
  }
  ~ReadDeadlineScope() { release(); }
  ReadDeadlineScope(const ReadDeadlineScope&) = delete;
  ReadDeadlineScope& operator=(const ReadDeadlineScope&) = delete;

  // Ends the deadline now; true when it had passed.
  bool release() {
    if (released_) return passed_;
    released_ = true;
    passed_ = deadlines_.release(fd_);
    return passed_;
  }

 private:
  ReadDeadlines& deadlines_;
  int fd_;
  bool released_ = false;
  bool passed_ = false;
};

}  // namespace tailor::kube::http
