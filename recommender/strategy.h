#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "recommender/resources.h"

namespace tailor::recommender {

// What a recommender sees at the end of one sample period (recommender/sample_period.h makes it,
// for replay and the live controller alike): the period's mean CPU (what a rate-based sampler
// sees), its CPU peak (the highest rate sampled in it, at least the mean) and its memory peak
// (0 = missing sample, not zero usage).
struct UsageSample {
  Seconds start = 0;
  Seconds length = 0;
  double cpu_cores = 0;
  double memory_peak_bytes = 0;
  double cpu_peak_cores = 0;
};

// One pod's last sample period, as its update rule sees it: the mean CPU and the CPU peak
// (< 0: no period yet); and how long the shortest of its runs that ended in an OOM kill ran (the
// containers' last terminations, finishedAt - startedAt; < 0: none), for VPA's quick-OOM update
// (recommender/update_rule.h).
struct PodUsage {
  double cpu_cores = -1;
  double cpu_peak_cores = -1;
  Seconds oom_run = -1;
  friend bool operator==(const PodUsage&, const PodUsage&) = default;
};
inline PodUsage pod_usage(const UsageSample& s) {
  return {s.cpu_cores, s.cpu_peak_cores < s.cpu_cores ? s.cpu_cores : s.cpu_peak_cores};
}

// The samples behind a model (what a checkpoint's status shows).
struct SampleSpan {
  Seconds first = 0;
  Seconds last = 0;
  long count = 0;
};

// A SampleSpan in 16 bytes, for per-container state: the last time as an offset from the first
// (136 years) and the count saturating at 2^32 - 1.
struct CompactSpan {
  Seconds first = 0;
  std::uint32_t length = 0;
  std::uint32_t count = 0;
  // Inline: every sample of every container comes here, nearly always at or after the first and
  // within the span's reach; the first sample, a sample before the first and a span past 136
  // years take the out-of-line path. (The offset is unsigned: start - first cannot overflow.)
  void add(Seconds start) {
    const std::uint64_t offset =
        static_cast<std::uint64_t>(start) - static_cast<std::uint64_t>(first);
    if (count != 0 && start >= first && offset <= UINT32_MAX) [[likely]] {
      if (offset > length) length = static_cast<std::uint32_t>(offset);
      if (count < UINT32_MAX) ++count;
      return;
    }
    add_rarely(start);
  }
  SampleSpan span() const { return {first, first + static_cast<Seconds>(length), count}; }
  // False (and nothing changed) for a span that is inconsistent or does not fit.
  bool assign(const SampleSpan& s);

 private:
  void add_rarely(Seconds start);
};

// One container's recommender plus its update rule, driven by replay (and by the controller).
class Strategy {
 public:
  virtual ~Strategy() = default;
  // `request` is what the container ran with during the window.
  virtual void observe(const UsageSample& sample, const Resources& request) = 0;
  // The container was OOM-killed at `time` while running with memory request `request_bytes`
  // and limit `limit_bytes` (0: none). Both are passed because the strategies bump different
  // ones: VPA's recommender bumps the request (its OOM observer reads the pod's memory request),
  // Tailor's the limit that was hit.
  virtual void on_oom(Seconds time, double request_bytes, double limit_bytes) = 0;
  virtual Recommendation recommend(Seconds now) = 0;
  // The update rule: the requests to apply now to a pod running with `request` since
  // `pod_age` ago (its start or its last change), or nullopt to leave it alone. `last` is that
  // pod's own last sample period: a model learns from all of a workload's pods, but a burst is
  // one pod's, and another pod's quiet period must not hide it. Side-effect free: replay and
  // the live controller (its leader and its standbys alike) ask it, and only applied() changes
  // the rule's state.
  virtual std::optional<Resources> decide(const Recommendation& r, const Resources& request,
                                          Seconds now, Seconds pod_age,
                                          const PodUsage& last) const = 0;
  // decide() for the pod whose periods the strategy observed last (replay: the only one).
  std::optional<Resources> update(const Recommendation& r, const Resources& request, Seconds now,
                                  Seconds pod_age) const {
    return decide(r, request, now, pod_age, last_usage());
  }
  // The last period observed, as PodUsage (none for a strategy that does not keep it).
  virtual PodUsage last_usage() const { return {}; }
  // Tells the strategy what was applied (its update rule may keep state: hold timers start).
  virtual void applied(const Resources& /*request*/, Seconds /*now*/) {}
  virtual std::size_t state_bytes() const = 0;

  // Checkpoints: the strategy's durable state as compact text, tagged with the strategy and
  // format version. restore() is for a strategy that has seen nothing yet; it throws
  // CheckpointError (recommender/checkpoint.h) saying what is wrong for a corrupt checkpoint or
  // one of another strategy or configuration, and then leaves the strategy as it was.
  // restore(save()) recommends what the saved strategy recommends. A strategy that keeps no
  // durable state saves nothing (empty) and refuses every checkpoint.
  virtual std::string save() const { return {}; }
  virtual void restore(std::string_view checkpoint);
  virtual SampleSpan samples() const { return {}; }
};

// Builds one Strategy per container.
class StrategyFactory {
 public:
  virtual ~StrategyFactory() = default;
  virtual std::string name() const = 0;
  virtual std::string update_rule() const = 0;  // reported with the row
  virtual std::unique_ptr<Strategy> create() const = 0;
};

// "vpa" or a variant "vpa:KNOB=VALUE,..." (recommender/vpa_knobs.h), named as written; throws
// std::invalid_argument saying what is wrong with the spec.
std::unique_ptr<StrategyFactory> make_vpa_strategy(const std::string& spec = "vpa");
std::unique_ptr<StrategyFactory> make_default_strategy();
// "vpa", a vpa variant or "default"; throws std::invalid_argument naming the known strategies
// (or what is wrong with a vpa variant) otherwise.
std::unique_ptr<StrategyFactory> make_strategy(const std::string& name);
std::vector<std::string> strategy_names();

}  // namespace tailor::recommender
