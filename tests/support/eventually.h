// Polling for state another thread or process brings about and that has no notification of its
// own: the one bounded wait the tests share.
#pragma once

#include <chrono>
#include <thread>

namespace tailor::kube::testing {

// Asks `done` every `every` until it holds; false once `within` has passed without it. The
// default bound is generous: only a failing test waits it out.
template <class Done>
bool eventually(Done&& done, std::chrono::milliseconds within = std::chrono::seconds(30),
                std::chrono::milliseconds every = std::chrono::milliseconds(10)) {
  const auto deadline = std::chrono::steady_clock::now() + within;
  while (!done()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(every);
  }
  return true;
}

}  // namespace tailor::kube::testing
