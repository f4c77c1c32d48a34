#pragma once

#include <cstddef>

#include "recommender/checkpoint.h"
#include "recommender/decaying_histogram.h"
#include "recommender/millicore_buckets.h"
#include "recommender/resources.h"

namespace tailor::recommender {

// Knobs of VPA's usage model, with VPA's defaults (aggregations_config.go, container.go).
struct VpaModelConfig {
  Seconds cpu_half_life = kDay;
  Seconds memory_half_life = kDay;
  Seconds memory_aggregation_interval = kDay;  // one memory peak per interval
  double min_cpu_sample_weight = 0.1;          // cores; CPU samples weigh max(request, this)
  double oom_bump_ratio = 1.2;
  double oom_min_bump_bytes = 100 * kMiB;
};

// One container's usage history, as VPA's AggregateContainerState plus the ContainerState that
// feeds it one memory peak per aggregation interval. Values are quantized like VPA's
// ResourceAmount (whole millicores, whole bytes).
class VpaContainerModel {
 public:
  explicit VpaContainerModel(const VpaModelConfig& config = {});

  // Rejects (returns false) negative or non-finite usage, and CPU samples not after the last one.
  bool add_cpu_sample(Seconds start, double cores, double request_cores);
  // Rejects negative or non-finite usage, and samples older than the last memory sample.
  bool add_memory_sample(Seconds start, double bytes) { return add_memory(start, bytes, false); }
  // An OOM kill at `time` of a container with memory request `requested_bytes` (VPA's OOM
  // observer reads the request): records max(+100 MiB, x1.2) of max(request, current peak) as
  // an artificial peak. False if too old or invalid.
  bool record_oom(Seconds time, double requested_bytes);

  const DecayingHistogram& cpu() const { return cpu_; }
  const DecayingHistogram& memory_peaks() const { return memory_; }
  // VPA's getConfidence: min(history span in days, samples / 1440).
  double confidence() const;
  long total_samples() const { return total_samples_; }

  // The durable state (histograms, sample span and count), as VPA checkpoints it.
  ModelCheckpoint save() const;
  // Restores into a model that has seen no samples. Throws CheckpointError and leaves the
  // model unchanged when the checkpoint is invalid.
  void load(const ModelCheckpoint& checkpoint);
  std::size_t state_bytes() const;

 private:
  bool add_memory(Seconds start, double bytes, bool oom);
  double max_memory_peak() const { return memory_peak_ > oom_peak_ ? memory_peak_ : oom_peak_; }

  VpaModelConfig config_;
  const MillicoreBuckets* cpu_buckets_;  // VPA's CPU geometry, looked up by whole millicores
  DecayingHistogram cpu_;
  DecayingHistogram memory_;
  Seconds first_sample_ = 0;
  Seconds last_sample_ = 0;
  Seconds last_cpu_sample_ = 0;
  Seconds last_memory_sample_ = 0;
  Seconds window_end_ = 0;
  double memory_peak_ = 0;
  double last_request_ = -1;  // the request rarely changes: its weight is cached
  double last_weight_ = 0;
  double oom_peak_ = 0;
  long total_samples_ = 0;
  bool has_cpu_ = false;
  bool has_memory_ = false;
};

}  // namespace tailor::recommender
