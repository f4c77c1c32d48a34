// The controller's live usage models: one recommender Strategy per (policy, container name),
// fed with every pod's usage windows (VPA aggregates a workload's pods the same way), asked for
// recommendations, and forgotten when the policy goes or the container has not been seen for a
// while, so memory follows the workloads and not the pod churn. Each pod's windows are folded
// into sample periods first (recommender/sample_period.h), so a model sees what replay feeds it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "recommender/sample_period.h"
#include "recommender/strategy.h"

namespace tailor::controller::recommendation {

using recommender::Recommendation;
using recommender::Resources;
using recommender::SampleSpan;
using recommender::Seconds;
using recommender::UsageSample;

struct ContainerModelKey {
  std::string policy;  // "namespace/name"
  std::string container;
  auto operator<=>(const ContainerModelKey&) const = default;
};

// What the per-workload series (controller/app/workload_series.h) show of one container's model,
// read at scrape time from what the model keeps anyway.
struct ContainerActivity {
  // Over the container's pods, each by its open sample period as it stands, else its last
  // completed one (SamplePeriodFold::latest): the sum of their mean CPU (cores) and of their
  // memory peaks (bytes), the largest CPU and memory peaks, and how many pods that is (0: no
  // usage yet).
  int pods = 0;
  double cpu_mean_sum = 0, cpu_peak = 0, memory_sum = 0, memory_peak = 0;
  std::uint64_t oom_kills = 0;  // on_oom
  std::uint64_t resizes = 0;    // applied
  // CPU used beyond the request, in core-seconds, over the sample periods completed.
  double cpu_shortfall_core_seconds = 0;
};

class ModelRegistry {
 public:
  // `sample_period`: the periods each pod's windows are folded into (recommender/sample_period.h);
  // only the default matches the models' tuning.
  explicit ModelRegistry(std::shared_ptr<const recommender::StrategyFactory> factory,
                         Seconds sample_period = recommender::kSamplePeriod);
  Seconds sample_period() const { return sample_period_; }

  // A pod's usage over one sample period; `request` is what the pod ran with.
  void observe(const ContainerModelKey& key, const UsageSample& sample, const Resources& request);
  // One window of a pod's container, from one source (`pod` names the pod and the source: each
  // source's windows come in time order, but a history can come after a stream's first windows).
  // Folded into that pod's open sample period; each period it completes is observed, with the
  // request of the period's last window. Returns the end of the last period the window completed
  // (Unix seconds; nullopt: none), when the pod's update rule has something new to judge.
  // Throws recommender::UsageWindowError, saying why, for a window the fold refuses; nothing
  // changes then.
  std::optional<Seconds> observe_window(const ContainerModelKey& key, const std::string& pod,
                                        const recommender::MeasuredWindow& window,
                                        const Resources& request);
  // Pods whose last window ended before `cutoff` (gone, or silent): their open periods are
  // observed as they stand and their folds forgotten. Returns how many periods were observed.
  std::size_t close_periods(Seconds cutoff);
  // An OOM kill at `time` of a container running with these memory request and limit (0: none).
  void on_oom(const ContainerModelKey& key, Seconds time, double request_bytes, double limit_bytes);
  // nullopt until the container has been observed.
  std::optional<Recommendation> recommend(const ContainerModelKey& key, Seconds now) const;
  // The strategy's update rule for one pod's container (Strategy::decide): the requests to run
  // with from now on, or nullopt to leave them. `pod` is "namespace/name" and `uid` its uid: the
  // pod's own last period (from its agent's windows, else from any other source of its
  // windows) is what a burst is judged on. `pod_age`: since the pod's start or last change.
  // `oom_run`: how long the shortest of the pod's runs that its containers' last terminations
  // show ended in an OOM kill ran (< 0: none; PodUsage::oom_run).
  // Changes no rule state (a standby's refresh asks too; the target it computes on the way is
  // the one the pass's status shows); nullopt also for an unknown container.
  std::optional<Resources> decide(const ContainerModelKey& key, const std::string& pod,
                                  const std::string& uid, const Resources& request, Seconds now,
                                  Seconds pod_age, Seconds oom_run = -1) const;

  // A model found once for many calls: a pass asks for each of a workload's pods, and at 30,000
  // models each lookup by key is a walk of the key tree comparing strings, cold in the cache
  // (bench/RESULTS.md "Scale"). A handle stays valid until a model is forgotten
  // (forget_policy, forget_idle), which the controller does only between passes.
  class Handle {
    friend class ModelRegistry;
    const void* model_ = nullptr;
  };
  // nullopt for a container not tracked.
  std::optional<Handle> find(const ContainerModelKey& key) const;
  // decide() and samples() for a model found.
  std::optional<Resources> decide(Handle model, std::string_view pod, std::string_view uid,
                                  const Resources& request, Seconds now, Seconds pod_age,
                                  Seconds oom_run = -1) const;
  SampleSpan samples(Handle model) const;
  // A resize to `request` of one of the container's pods was accepted at `now`: the strategy's
  // update rule starts its timers (a raise's hold, memory's wait), as replay's does.
  void applied(const ContainerModelKey& key, const Resources& request, Seconds now);
  std::vector<std::string> containers(const std::string& policy) const;
  // Each container's activity, in key order, under the registry's lock (`f` must not call back).
  void each_activity(
      const std::function<void(const ContainerModelKey&, const ContainerActivity&)>& f) const;

  void forget_policy(const std::string& policy);
  // Drops containers whose last window ended before `cutoff`; returns how many.
  std::size_t forget_idle(Seconds cutoff);

  std::size_t size() const;
  std::size_t state_bytes() const;

  // Checkpoints (VerticalScalingCheckpoint objects; controller/app/checkpoints.h).
  struct SavedModel {
    std::string state;  // the strategy's compact checkpoint text
    SampleSpan samples;
  };
  std::vector<ContainerModelKey> keys() const;
  // nullopt when the container is not tracked or its strategy keeps no durable state.
  std::optional<SavedModel> save(const ContainerModelKey& key) const;
  // The samples behind the container's model (cheap: tells whether it changed since a save).
  std::optional<SampleSpan> samples(const ContainerModelKey& key) const;
  // Restores the container's model from a checkpoint, unless it already has a live model with
  // at least as many samples (a standby fed part of the stream keeps what it saw only if that
  // is more than the leader saved): then false and the checkpoint is ignored.
  // Throws recommender::CheckpointError for a corrupt checkpoint; no model is created then.
  bool restore(const ContainerModelKey& key, std::string_view state);

 private:
  // One pod's container, from one source, with its period being folded.
  struct PodWindows {
    recommender::SamplePeriodFold fold;
    Resources request;  // with the open period's last window
    Seconds last_end = 0;
    recommender::PodUsage last{};  // the pod's last completed period, for its update rule
  };
  struct Model {
    std::unique_ptr<recommender::Strategy> strategy;
    Seconds last_seen = 0;
    // By pod and source (observe_window); transparent, so that decide() finds a pod's sources
    // without building a string.
    std::map<std::string, PodWindows, std::less<>> pods{};
    // Counted for the per-workload series; they start anew when the model is forgotten.
    std::uint64_t oom_kills = 0, resizes = 0;
    double cpu_shortfall_core_seconds = 0;
  };
  Model& model(const ContainerModelKey& key);
  static const Model& model(Handle h) { return *static_cast<const Model*>(h.model_); }
  std::optional<Resources> decide(const Model& m, std::string_view pod, std::string_view uid,
                                  const Resources& request, Seconds now, Seconds pod_age,
                                  Seconds oom_run) const;
  static void observe_model(Model& m, const UsageSample& sample, const Resources& request);
  static void observe_period(Model& m, PodWindows& p, const UsageSample& sample,
                             const Resources& request);
  // A closed sample period of a measured window: into the model, and the CPU it used beyond
  // the request counted.
  static void observe_measured(Model& m, const UsageSample& sample, const Resources& request);

  std::shared_ptr<const recommender::StrategyFactory> factory_;
  Seconds sample_period_;
  mutable std::mutex mutex_;
  mutable std::string source_;  // decide()'s source key, built in place (under mutex_)
  std::map<ContainerModelKey, Model> models_;
};

}  // namespace tailor::controller::recommendation
