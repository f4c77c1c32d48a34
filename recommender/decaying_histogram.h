#pragma once

#include <cmath>
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
  [[gnu::always_inline]] void add_sample(double value, double weight, Seconds time) {
    if (!(weight >= 0) || !std::isfinite(value)) return;  // never poison the histogram
    add_to_bucket(options_->find_bucket(value), weight, time);
  }
  // add_sample once the caller has validated the weight (>= 0, finite) and found the bucket
  // (in [0, num_buckets)) itself, e.g. from a table of quantized values.
  [[gnu::always_inline]] void add_to_bucket(int bucket, double weight, Seconds time) {
    weight *= decay_factor(time);
    float& w = slot(bucket);
    w += static_cast<float>(weight);
    total_weight_ += weight;
    // The range check first: almost every sample lands inside the known range.
    if ((bucket < min_bucket_ || bucket > max_bucket_) && w >= options_->epsilon()) {
      widen_range(bucket);
    }
  }
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
  // [0, num_buckets); finish_load then adds the checkpoint's total as it was saved (summing the
  // rescaled bucket weights drifted it by rounding at every restore) and narrows the range to
  // the buckets with weight (a zero-weight bucket loaded below the others made the histogram look
  // empty); then the reference the weights are relative to is set.
  void load_weight(int bucket, double weight);
  void finish_load(double total_weight);
  void set_reference(Seconds reference);

  // Bucket weight as VPA would hold it (0 outside the stored range).
  double bucket_weight(int bucket) const;
  int min_bucket() const { return min_bucket_; }
  int max_bucket() const { return max_bucket_; }

  // Heap + inline bytes of this histogram's state.
  std::size_t state_bytes() const { return sizeof(*this) + weights_.capacity() * sizeof(float); }

 private:
  // Inline fast paths (ingestion is the hot loop); the rare cases are out of line.
  double decay_factor(Seconds time) {
    if (time > renormalize_after_ || !has_reference_) [[unlikely]]
      renormalize(time);
    if (time - last_time_ == step_ && --cached_steps_left_ > 0) [[likely]] {
      last_time_ = time;
      return last_factor_ *= step_factor_;
    }
    return exact_exp2(time);
  }
  void renormalize(Seconds time);
  void invalidate_factor() {
    last_factor_ = 0;
    cached_steps_left_ = 0;
  }
  double exact_exp2(Seconds time);
  void widen_range(int bucket);
  // Drift of the multiplied factor stays below 64 ulps before an exact recomputation.
  static constexpr int kExactEvery = 64;
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
  // Multiplications left before the next exact exp2; 0 while last_factor_ is not valid for
  // step_ (so the fast path never runs on a stale or zero factor).
  std::int32_t cached_steps_left_ = 0;
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
