#include "kube/client/informer_backoff.h"

#include <algorithm>
#include <stdexcept>

namespace tailor::kube::cache {

Backoff::Backoff(BackoffPolicy policy, std::function<double()> random)
    : policy_(policy), random_(std::move(random)), step_(policy.initial) {
  if (policy_.initial.count() <= 0 || policy_.cap < policy_.initial || policy_.factor < 1.0 ||
      policy_.jitter < 0.0) {
    throw std::invalid_argument("backoff: need 0 < initial <= cap, factor >= 1 and jitter >= 0");
  }
  if (!random_) throw std::invalid_argument("backoff: no random source");
}

std::chrono::milliseconds Backoff::next(Clock::time_point now) {
  if (failed_before_ && now - last_failure_ > policy_.reset_after) step_ = policy_.initial;
  failed_before_ = true;
  last_failure_ = now;
  auto base = step_;
  double stretched = static_cast<double>(base.count()) * (1.0 + policy_.jitter * random_());
  auto grown = static_cast<double>(step_.count()) * policy_.factor;
  step_ = std::chrono::milliseconds(
      static_cast<std::int64_t>(std::min(grown, static_cast<double>(policy_.cap.count()))));
  return std::chrono::milliseconds(static_cast<std::int64_t>(stretched));
}

void Backoff::reset() {
  step_ = policy_.initial;
  failed_before_ = false;
}

}  // namespace tailor::kube::cache
