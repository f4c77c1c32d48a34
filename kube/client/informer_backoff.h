// Backoff between failed list/watch attempts, as client-go's reflector does: exponential from
// 800 ms to a 30 s cap, each delay stretched by up to 100% random jitter, and back to the start
// once nothing failed for two minutes. Time and randomness are injected for tests.
#pragma once

#include <chrono>
#include <functional>

namespace tailor::kube::cache {

struct BackoffPolicy {
  std::chrono::milliseconds initial{800};
  std::chrono::milliseconds cap{30000};
  double factor = 2.0;
  double jitter = 1.0;  // delay * (1 + jitter * random[0,1))
  std::chrono::milliseconds reset_after{120000};
};

class Backoff {
 public:
  using Clock = std::chrono::steady_clock;
  // random() returns a uniform value in [0, 1).
  Backoff(BackoffPolicy policy, std::function<double()> random);

  // The delay before the next attempt, given the time of the failure.
  std::chrono::milliseconds next(Clock::time_point now);
  void reset();

 private:
  BackoffPolicy policy_;
  std::function<double()> random_;
  std::chrono::milliseconds step_;
  Clock::time_point last_failure_{};
  bool failed_before_ = false;
};

}  // namespace tailor::kube::cache
