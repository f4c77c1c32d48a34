#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "recommender/histogram_options.h"
#include "recommender/resources.h"

namespace tailor::recommender {

// VPA's decaying histogram (util/decaying_histogram.go + histogram.go), stored compactly: float
// weights only for the bucket range ever touched, instead of VPA's ~180 float64 buckets.
// A sample at time t weighs weight * 2^((t - reference) / half_life); the reference is a
// multiple of half_life and moves forward (rescaling all weights) when the exponent would pass
// 100, exactly when VPA moves it. Buckets below options.epsilon() count as empty.
class DecayingHistogram {
 public:
  DecayingHistogram(const HistogramOptions& options, Seconds half_life);

  // Weight must be finite and >= 0 and value finite; callers validate (the model rejects bad
  // samples before they get here). Out-of-range values land in the first or last bucket.
  void add_sample(double value, double weight, Seconds time);
  void subtract_sample(double value, double weight, Seconds time);

  // VPA semantics: the end of the first bucket where the cumulative weight reaches p * total
  // (start of the last bucket if that is the one); 0 when empty.
  double percentile(double p) const;
  bool empty() const;
  double total_weight() const { return total_weight_; }
  Seconds reference() const { return reference_; }
  Seconds half_life() const { return half_life_; }
  const HistogramOptions& options() const { return *options_; }

  // Checkpoint restore (VPA's LoadFromCheckpoint): adds raw weight to a bucket in
  // [0, num_buckets), then the reference the weights are relative to is set.
  void load_weight(int bucket, double weight);
  void set_reference(Seconds reference);

  // Bucket weight as VPA would hold it (0 outside the stored range).
  double bucket_weight(int bucket) const;
  int min_bucket() const { return min_bucket_; }
  int max_bucket() const { return max_bucket_; }

  // Heap + inline bytes of this histogram's state.
  std::size_t state_bytes() const { return sizeof(*this) + weights_.capacity() * sizeof(float); }

 private:
  double decay_factor(Seconds time);
  double cached_exp2(Seconds time);
  void shift_reference(Seconds new_reference);
  void scale(double factor);
  float& slot(int bucket) {  // grows the stored range to include bucket
    const unsigned i = static_cast<unsigned>(bucket - first_stored_);
    return i < weights_.size() ? weights_[i] : grow_to(bucket);
  }
  float& grow_to(int bucket);
  void update_min_and_max();

  const HistogramOptions* options_;
  // Samples usually arrive at a fixed period: 2^(period / half_life) is cached so that the
  // next factor is one multiplication (recomputed exactly every kExactEvery steps).
  double last_factor_ = 0;
  double step_factor_ = 0;
  Seconds last_time_ = 0;
  Seconds step_ = 0;
  std::int32_t steps_since_exact_ = 0;
  std::vector<float> weights_;  // weights_[i] is bucket first_stored_ + i
  double total_weight_ = 0;
  Seconds reference_ = 0;
  Seconds renormalize_after_ = 0;  // reference_ + 100 half-lives
  Seconds half_life_;
  std::int32_t first_stored_ = 0;
  // VPA's minBucket/maxBucket (first/last non-empty; num_buckets-1 / 0 when empty).
  std::int32_t min_bucket_;
  std::int32_t max_bucket_ = 0;
  bool has_reference_ = false;
};

}  // namespace tailor::recommender
