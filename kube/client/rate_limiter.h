// Client-side request throttling as client-go does it: a token bucket filled at qps tokens a
// second up to burst. TokenBucket is pure (time is passed in); RateLimiter adds the lock and
// the sleeping.
#pragma once

#include <chrono>
#include <mutex>

namespace tailor::kube {

class TokenBucket {
 public:
  using Clock = std::chrono::steady_clock;

  // qps <= 0 disables limiting (every reservation is free). burst < 1 counts as 1.
  TokenBucket(double qps, int burst, Clock::time_point now);

  // Takes one token at `now` and returns how long the caller must wait before using it (zero
  // when one was available). Reservations queue up: tokens may go negative.
  Clock::duration reserve(Clock::time_point now);
  // Takes one token at `now` if one is there, never going into debt: for a caller that drops
  // what is over the limit instead of waiting (a flood then costs nothing later).
  bool try_take(Clock::time_point now);

  double tokens_at(Clock::time_point now) const;

 private:
  void refill(Clock::time_point now);

  double qps_;
  double burst_;
  double tokens_;
  Clock::time_point last_;
};

class RateLimiter {
 public:
  RateLimiter(double qps, int burst);
  // Blocks until the caller may send a request. Thread-safe.
  void wait();

 private:
  std::mutex mutex_;
  TokenBucket bucket_;
};

}  // namespace tailor::kube
