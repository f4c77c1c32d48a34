// The usage windows a source feeds to its sink, recorded for the tests (the sink is called on the
// source's thread, the checks run on the test's).
#pragma once

#include <mutex>
#include <string>
#include <vector>

#include "controller/usage/usage_server.h"

namespace tailor::controller::usage::testing {

struct FedWindows {
  std::mutex m;
  std::vector<UsageWindow> windows;

  UsageSink sink() {
    return [this](const UsageWindow& w) {
      std::lock_guard lock(m);
      windows.push_back(w);
    };
  }

  std::size_t size() {
    std::lock_guard lock(m);
    return windows.size();
  }

  std::vector<std::string> containers() {
    std::lock_guard lock(m);
    std::vector<std::string> out;
    for (const UsageWindow& w : windows) out.push_back(w.container);
    return out;
  }
};

}  // namespace tailor::controller::usage::testing
