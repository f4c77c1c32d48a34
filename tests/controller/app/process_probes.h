// What the tests of ControllerProcess look at from outside, as an operator would: whether a port
// takes connections, and which threads the test process runs (a stopped process leaves none of
// its own behind).
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <set>
#include <string>
#include <thread>

#include "tests/support/eventually.h"

namespace tailor::controller::testing {

// True when something listens on 127.0.0.1:port.
inline bool accepts_connections(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return false;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const bool connected = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  ::close(fd);
  return connected;
}

// The ids of the test process's threads.
inline std::set<std::string> thread_ids() {
  std::set<std::string> ids;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
    ids.insert(task.path().filename().string());
  }
  return ids;
}

// Threads running now that were not in `before` (a count, not equality with `before`: threads
// of the in-process API server come and go on their own).
inline std::size_t threads_started_since(const std::set<std::string>& before) {
  std::size_t added = 0;
  for (const std::string& id : thread_ids()) added += before.count(id) == 0;
  return added;
}

using kube::testing::eventually;

// The time `action` takes.
inline std::chrono::milliseconds time_of(const std::function<void()>& action) {
  const auto start = std::chrono::steady_clock::now();
  action();
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                               start);
}

}  // namespace tailor::controller::testing
