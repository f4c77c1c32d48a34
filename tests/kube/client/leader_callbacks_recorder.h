// Records a LeaderElector's callbacks and lets a test wait for a condition on them, with a
// generous bound (elections run on real timers; the bound only stops a broken test hanging).
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "kube/client/leader_election_elector.h"

namespace tailor::kube::testing {

struct LeaderCallbacksRecorder {
  std::mutex mutex;
  std::condition_variable changed;
  int started = 0, stopped = 0;
  std::vector<std::string> leaders;

  LeaderCallbacks callbacks() {
    return {[this] { bump(started); }, [this] { bump(stopped); },
            [this](const std::string& who) {
              std::lock_guard lock(mutex);
              leaders.push_back(who);
              changed.notify_all();
            }};
  }
  void bump(int& counter) {
    std::lock_guard lock(mutex);
    ++counter;
    changed.notify_all();
  }
  bool wait_for(const std::function<bool()>& pred) {
    std::unique_lock lock(mutex);
    return changed.wait_for(lock, std::chrono::seconds(30), pred);
  }
};

}  // namespace tailor::kube::testing
