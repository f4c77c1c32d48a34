// Restart rules of the embedded pod runtime, as the kubelet applies them: which exited
// containers restart (restartPolicy), and CrashLoopBackOff (the first restart at once, then a
// delay that starts at `initial` and doubles up to `max`; a container that ran longer than
// 2 × max without restarting starts over).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace tailor::node::runtime {

// "Always" (also when empty), "OnFailure" (exit code ≠ 0) or "Never".
bool should_restart(const std::string& restart_policy, std::int32_t exit_code);

class RestartBackoff {
 public:
  using Clock = std::chrono::steady_clock;
  RestartBackoff(std::chrono::milliseconds initial, std::chrono::milliseconds max);

  // When the next restart may happen (time_point::min() before the first restart).
  Clock::time_point next_allowed() const;
  // The delay now in force, for the CrashLoopBackOff message.
  std::chrono::milliseconds delay() const { return delay_; }
  // A restart happened at `now`: the next one waits longer.
  void restarted(Clock::time_point now);

 private:
  std::chrono::milliseconds initial_, max_;
  std::chrono::milliseconds delay_{0};
  Clock::time_point last_restart_ = Clock::time_point::min();
};

// A runtime step that failed (running the pod's sandbox, creating or starting a container): it is
// tried again no sooner than the back-off allows (the kubelet's 10 s doubling to 5 min), and
// meanwhile the status keeps saying why it failed.
struct FailedStep {
  RestartBackoff backoff;
  std::string reason{};
  std::string message{};

  // Whether the step may be tried at `now`.
  bool due(RestartBackoff::Clock::time_point now) const { return now >= backoff.next_allowed(); }
  // It failed (again) at `now`: the next try waits longer.
  void failed(RestartBackoff::Clock::time_point now, std::string why_reason, std::string why);
};

// "back-off 10s restarting failed container=app pod=web_shop(uid)"
std::string crash_loop_message(std::chrono::milliseconds delay, const std::string& container,
                               const std::string& pod, const std::string& ns,
                               const std::string& uid);

}  // namespace tailor::node::runtime
