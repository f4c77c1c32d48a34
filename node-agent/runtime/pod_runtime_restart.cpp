#include "node-agent/runtime/pod_runtime_restart.h"

#include <stdexcept>

#include "kube/observe/duration.h"

namespace tailor::node::runtime {

bool should_restart(const std::string& restart_policy, std::int32_t exit_code) {
  if (restart_policy.empty() || restart_policy == "Always") return true;
  if (restart_policy == "OnFailure") return exit_code != 0;
  if (restart_policy == "Never") return false;
  throw std::invalid_argument("restartPolicy: unsupported value \"" + restart_policy +
                              "\" (Always, OnFailure, Never)");
}

RestartBackoff::RestartBackoff(std::chrono::milliseconds initial, std::chrono::milliseconds max)
    : initial_(initial), max_(max) {
  if (initial.count() < 0 || max < initial) {
    throw std::invalid_argument("restart back-off: need 0 <= initial <= max");
  }
}

RestartBackoff::Clock::time_point RestartBackoff::next_allowed() const {
  if (last_restart_ == Clock::time_point::min()) return last_restart_;
  return last_restart_ + delay_;
}

void RestartBackoff::restarted(Clock::time_point now) {
  const bool first = last_restart_ == Clock::time_point::min();
  if (first || now - last_restart_ > 2 * max_) {
    delay_ = initial_;
  } else {
    delay_ = std::min(delay_ * 2, max_);
  }
  last_restart_ = now;
}

void FailedStep::failed(RestartBackoff::Clock::time_point now, std::string why_reason,
                        std::string why) {
  backoff.restarted(now);
  reason = std::move(why_reason);
  message = std::move(why);
}

std::string crash_loop_message(std::chrono::milliseconds delay, const std::string& container,
                               const std::string& pod, const std::string& ns,
                               const std::string& uid) {
  return "back-off " + kube::format_duration(delay) + " restarting failed container=" + container +
         " pod=" + pod + "_" + ns + "(" + uid + ")";
}

}  // namespace tailor::node::runtime
