// tailor-controller's passes, on a thread of their own: once the informers have synced, the
// usage history and the metrics.k8s.io poller are started, then every pass interval the leader
// runs a pass (reading its state back first after each election) while a standby only refreshes
// which pod belongs to which policy, so that its models stay fed. A failed pass is logged and
// retried at the next interval.
#pragma once

#include <atomic>
#include <cstdint>
#include <thread>

#include "controller/app/controller.h"
#include "controller/app/process_options.h"
#include "controller/usage/metrics_api_poller.h"

namespace tailor::controller {

class PassLoop {
 public:
  // Without leader election this replica leads from the start.
  PassLoop(Controller& controller, const ProcessOptions& options);
  ~PassLoop();  // stop()
  PassLoop(const PassLoop&) = delete;
  PassLoop& operator=(const PassLoop&) = delete;

  // `started_s` (unix seconds) bounds the history read from Prometheus; `poller` (may be null)
  // is started once the informers have synced, so that its first windows find their models.
  void start(std::int64_t started_s, usage::MetricsApiPoller* poller);
  // Joins the thread: it ends after the pass in progress, a tenth of a second into the wait
  // between passes, a second into the wait for the informers, or after the history's current
  // page.
  void stop();

  bool synced() const { return synced_; }  // the readiness check
  // Leader election's callbacks: a new term reads the state back before its first pass.
  void started_leading() { leading_ = true; }
  void stopped_leading();

 private:
  void run(std::int64_t started_s, usage::MetricsApiPoller* poller);
  bool wait_for_sync();
  void prepare(std::int64_t started_s, usage::MetricsApiPoller* poller);
  void pass();
  void sleep_interval();

  Controller& controller_;
  const ProcessOptions& options_;
  std::atomic<bool> synced_{false};
  std::atomic<bool> leading_;
  std::atomic<bool> state_loaded_{false};
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

}  // namespace tailor::controller
