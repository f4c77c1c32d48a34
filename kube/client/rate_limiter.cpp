#include "kube/client/rate_limiter.h"

#include <algorithm>
#include <thread>

namespace tailor::kube {

TokenBucket::TokenBucket(double qps, int burst, Clock::time_point now)
    : qps_(qps), burst_(std::max(1, burst)), tokens_(burst_), last_(now) {}

void TokenBucket::refill(Clock::time_point now) {
  if (now <= last_) return;
  double elapsed = std::chrono::duration<double>(now - last_).count();
  tokens_ = std::min(burst_, tokens_ + elapsed * qps_);
  last_ = now;
}

double TokenBucket::tokens_at(Clock::time_point now) const {
  TokenBucket copy = *this;
  copy.refill(now);
  return copy.tokens_;
}

TokenBucket::Clock::duration TokenBucket::reserve(Clock::time_point now) {
  if (qps_ <= 0) return Clock::duration::zero();
  refill(now);
  tokens_ -= 1;
  if (tokens_ >= 0) return Clock::duration::zero();
  return std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(-tokens_ / qps_));
}

bool TokenBucket::try_take(Clock::time_point now) {
  if (qps_ <= 0) return true;
  refill(now);
  if (tokens_ < 1) return false;
  tokens_ -= 1;
  return true;
}

RateLimiter::RateLimiter(double qps, int burst) : bucket_(qps, burst, TokenBucket::Clock::now()) {}

void RateLimiter::wait() {
  TokenBucket::Clock::duration delay;
  {
    std::lock_guard lock(mutex_);
    delay = bucket_.reserve(TokenBucket::Clock::now());
  }
  if (delay > TokenBucket::Clock::duration::zero()) std::this_thread::sleep_for(delay);
}

}  // namespace tailor::kube
