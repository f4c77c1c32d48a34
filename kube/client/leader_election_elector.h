// LeaderElector: runs the election loop on its own thread — acquire (retry_period with
// jitter), then renew every retry_period and give up leadership when no renewal succeeds
// within renew_deadline — and reports through callbacks. After losing the lease it becomes a
// candidate again; stop() releases a held lease (release_on_cancel).
#pragma once

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>

#include "kube/client/leader_election.h"
#include "kube/client/leader_election_lock.h"

namespace tailor::kube {

// Called on the elector's thread: they must return promptly (start work elsewhere).
struct LeaderCallbacks {
  std::function<void()> on_started_leading;
  // When leadership ends: lost (renewal failed) or released by stop(). Unlike client-go it is
  // not called when this candidate never led.
  std::function<void()> on_stopped_leading;
  // Whenever the observed holder changes (including to this candidate, or to "" on release).
  std::function<void(const std::string& identity)> on_new_leader;
};

class LeaderElector {
 public:
  using Now = std::function<WallClock::time_point()>;

  // Throws LeaderElectionConfigError for an invalid config.
  LeaderElector(std::shared_ptr<LeaseLock> lock, LeaderElectionConfig config,
                LeaderCallbacks callbacks, Now now = WallClock::now);
  ~LeaderElector();
  LeaderElector(const LeaderElector&) = delete;
  LeaderElector& operator=(const LeaderElector&) = delete;

  void start();  // once
  void stop();   // idempotent; releases the lease if leading and configured to

  bool is_leader() const;
  std::string leader() const;  // the last observed holder ("" if none)

  // One acquire-or-renew attempt (client-go's tryAcquireOrRenew); public for tests.
  bool try_acquire_or_renew();

 private:
  void run();
  bool acquire();
  bool renew_within_deadline();
  void release();
  void report_transition();
  void observe(const LeaseRecord& record, WallClock::time_point now);
  bool wait(std::chrono::milliseconds delay);  // false when stopping
  bool stopping() const;

  std::shared_ptr<LeaseLock> lock_;
  LeaderElectionConfig config_;
  LeaderCallbacks callbacks_;
  Now now_;
  std::mt19937_64 random_;  // jitter; used on the elector thread only

  mutable std::mutex mutex_;
  std::condition_variable stop_changed_;
  bool stopping_ = false, started_ = false, leading_ = false;
  LeaseRecord observed_;
  WallClock::time_point observed_since_{};
  std::string reported_leader_;
  std::thread thread_;
};

}  // namespace tailor::kube
