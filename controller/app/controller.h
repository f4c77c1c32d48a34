// tailor-controller's work: usage windows into the live models, a periodic pass (reconcile.h)
// whose statuses and actions it carries out through the API — policy status patches, one PATCH
// of pods/{name}/resize per pod, evictions — and the answers fed back into the tracked state,
// which is kept in a ConfigMap so outcome timers survive a restart. Also the webhook's decision
// for new pods. Only the leader runs passes; every replica keeps its models fed.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "actuator/resize_plan.h"
#include "controller/app/cluster_view.h"
#include "controller/usage/usage_server.h"
#include "controller/webhook/admission_review.h"
#include "kube/client/rest_client.h"
#include "policy/signals.h"
#include "recommender/tailored_strategy.h"

namespace tailor::controller {

struct ControllerOptions {
  std::string strategy = "default";  // recommender strategy: "default" or "vpa"
  std::string state_namespace = "kube-system";
  std::string state_config_map = "tailor-controller-state";
  double updates_per_second = 2;  // global rate limit of resizes and recreations
  double update_burst = 10;
  // Memory held after an OOM kill for as long as the default strategy holds its bump, whichever
  // strategy runs: the actuator then agrees with the recommender on how long a kill counts.
  // In place, the strategy's own update rule decides (what replay scores); recreations keep
  // the target rule.
  actuator::UpdateRule update_rule{
      .mode = actuator::UpdateRule::Mode::StrategyDecides,
      .oom_hold = std::chrono::seconds(recommender::TailoredConfig{}.oom_hold)};
  double eviction_tolerance = 0.5;
  ClusterViewOptions view{};
  std::chrono::hours idle_model_ttl{24 * 8};  // forget containers not seen for this long
  // VerticalScalingCheckpoint writes (checkpoints.h); also on shutdown.
  std::chrono::nanoseconds checkpoint_interval = std::chrono::minutes(1);
  // Each pod's usage windows are folded into one model sample per period
  // (recommender/sample_period.h). 5 minutes: what the models are tuned on and replay feeds them;
  // shorter only where a demo or test must see recommendations within seconds.
  std::chrono::nanoseconds sample_period = std::chrono::minutes(5);
  std::string record_usage{};  // a recording of every usage window received (usage_recorder.h)
};

struct ControllerStats {
  std::uint64_t passes = 0;
  std::uint64_t resizes = 0;            // PATCHes of /resize accepted by the API
  std::uint64_t resize_errors = 0;      // refused or failed
  std::uint64_t recreations = 0;        // evictions accepted
  std::uint64_t eviction_refusals = 0;  // 429 (PDB) and other refusals
  std::uint64_t status_updates = 0;
  std::uint64_t windows = 0;            // usage windows of pods under a policy (refused included)
  std::uint64_t windows_unmatched = 0;  // pods not under any policy
  std::uint64_t windows_refused = 0;    // not after their pod's previous window (sample_period.h)
  std::uint64_t windows_boosted = 0;    // of containers under their start-up boost: not modelled
  // OOM kills fed to the models, from pod status (lastState OOMKilled) and from the agents'
  // counter; the same kill seen by both counts once (controller/app/oom_kills.h).
  std::uint64_t ooms_from_status = 0;
  std::uint64_t ooms_from_agents = 0;
  std::uint64_t checkpoints_restored = 0;
  std::uint64_t checkpoints_invalid = 0;  // unreadable: their models started empty
  std::uint64_t checkpoints_written = 0;
  std::uint64_t checkpoints_deleted = 0;  // of policies that are gone
};

class Controller {
 public:
  Controller(kube::RestClient& client, ControllerOptions options);
  ~Controller();
  Controller(const Controller&) = delete;
  Controller& operator=(const Controller&) = delete;

  void start();  // informers
  bool wait_for_sync(std::chrono::milliseconds timeout) const;
  void stop();

  // On becoming leader: reads the tracked state and the models' checkpoints back (a model
  // already fed here is replaced only by a checkpoint with more samples). Throws when the
  // API cannot be read, so that the caller retries before the first pass.
  void load_state();
  // One pass (leader only); returns the number of actions taken. Writes the models'
  // checkpoints once per checkpoint interval.
  std::size_t run_pass(kube::TimePoint now);
  // Writes the models' checkpoints now (on shutdown); only if this replica runs passes.
  void save_checkpoints(kube::TimePoint now);
  // A standby's pass: which pod belongs to which policy (to feed the models), nothing written.
  void refresh(kube::TimePoint now);

  void on_usage(const usage::UsageWindow& window);
  webhook::AdmissionResponse admit(const webhook::AdmissionRequest& request) const;

  ControllerStats stats() const;
  // The tailor_workload_* families (workload_series.h) as this replica sees them now, in the
  // text format; nothing unless it runs passes. What /metrics shows of the controller serving.
  void write_workload_series(std::string& out) const;
  const ClusterView& view() const;

 private:
  // The pass under the lock; `started` is when it began (for its duration metric).
  std::size_t act(PassInputs& in, kube::TimePoint now,
                  std::chrono::steady_clock::time_point started);
  webhook::AdmissionResponse with_startup_boost(
      webhook::AdmissionResponse out, const std::string& pod_json, kube::Pod pod,
      const PolicyObject& p, const std::vector<actuator::ContainerChange>& changes,
      std::vector<policy::Annotation> annotations, kube::TimePoint now) const;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tailor::controller
