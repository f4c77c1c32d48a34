#include "recommender/decaying_histogram.h"

#include <algorithm>
#include <cmath>

namespace tailor::recommender {
namespace {
// VPA renormalizes when the decay factor would exceed 2^100.
constexpr Seconds kMaxDecayExponent = 100;

// Go's Time.Round: halfway values round up (away from the past).
Seconds round_to(Seconds t, Seconds d) {
  Seconds r = t % d;
  if (r < 0) r += d;
  return r + r < d ? t - r : t - r + d;
}
}  // namespace

DecayingHistogram::DecayingHistogram(const HistogramOptions& options, Seconds half_life)
    : options_(&options), half_life_(half_life), min_bucket_(options.num_buckets() - 1) {}

void DecayingHistogram::renormalize(Seconds time) {
  if (!has_reference_) {
    // VPA starts from the zero time, so its first sample always renormalizes to round(t).
    reference_ = round_to(time, half_life_);
    has_reference_ = true;
    invalidate_factor();
  } else {
    shift_reference(time);
  }
  renormalize_after_ = reference_ + half_life_ * kMaxDecayExponent;
}

double DecayingHistogram::exact_exp2(Seconds time) {
  if (cached_steps_left_ < 0) cached_steps_left_ = 0;  // a failed fast path on step_ 0
  const Seconds step = time - last_time_;
  if (last_factor_ > 0 && step == 0) return last_factor_;
  last_factor_ =
      std::exp2(static_cast<double>(time - reference_) / static_cast<double>(half_life_));
  if (step != step_ && step > 0) {
    step_ = step;
    step_factor_ = std::exp2(static_cast<double>(step) / static_cast<double>(half_life_));
  }
  cached_steps_left_ = step_ > 0 ? kExactEvery : 0;
  last_time_ = time;
  return last_factor_;
}

void DecayingHistogram::shift_reference(Seconds new_reference) {
  new_reference = round_to(new_reference, half_life_);
  double exponent = std::floor(
      static_cast<double>(reference_ - new_reference) / static_cast<double>(half_life_) + 0.5);
  scale(std::ldexp(1.0, static_cast<int>(exponent)));
  reference_ = new_reference;
  invalidate_factor();  // the cached factor was relative to the old reference
}

void DecayingHistogram::scale(double factor) {
  for (float& w : weights_) w = static_cast<float>(w * factor);
  total_weight_ *= factor;
  update_min_and_max();
}

float& DecayingHistogram::grow_to(int bucket) {
  if (weights_.empty()) {
    weights_.assign(1, 0.0f);
    first_stored_ = bucket;
  } else if (bucket < first_stored_ || bucket >= first_stored_ + int(weights_.size())) {
    // Grow to exactly the new range (no doubling): the range settles after a few samples and
    // the container state stays small.
    const int lo = std::min(bucket, first_stored_);
    const int hi = std::max(bucket, first_stored_ + int(weights_.size()) - 1);
    std::vector<float> grown(hi - lo + 1, 0.0f);
    std::copy(weights_.begin(), weights_.end(), grown.begin() + (first_stored_ - lo));
    weights_.swap(grown);
    first_stored_ = lo;
  }
  return weights_[bucket - first_stored_];
}

double DecayingHistogram::bucket_weight(int bucket) const {
  const int i = bucket - first_stored_;
  return i >= 0 && i < int(weights_.size()) ? weights_[i] : 0.0;
}

void DecayingHistogram::widen_range(int bucket) {
  min_bucket_ = std::min(min_bucket_, bucket);
  max_bucket_ = std::max(max_bucket_, bucket);
}

void DecayingHistogram::load_weight(int bucket, double weight) {
  if (bucket < 0 || bucket >= options_->num_buckets() || !(weight >= 0)) return;
  slot(bucket) += static_cast<float>(weight);
  min_bucket_ = std::min(min_bucket_, bucket);
  max_bucket_ = std::max(max_bucket_, bucket);
}

void DecayingHistogram::finish_load(double total_weight) {
  if (total_weight >= 0) total_weight_ += total_weight;
  update_min_and_max();
}

void DecayingHistogram::set_reference(Seconds reference) {
  reference_ = reference;
  renormalize_after_ = reference + half_life_ * kMaxDecayExponent;
  has_reference_ = true;
  invalidate_factor();
}

void DecayingHistogram::subtract_sample(double value, double weight, Seconds time) {
  if (!(weight >= 0) || !std::isfinite(value)) return;
  weight *= decay_factor(time);
  const int bucket = options_->find_bucket(value);
  float& w = slot(bucket);
  if (weight > w - options_->epsilon()) weight = w;
  total_weight_ -= weight;
  w = static_cast<float>(w - weight);
  update_min_and_max();
}

void DecayingHistogram::update_min_and_max() {
  const double eps = options_->epsilon();
  const int last = options_->num_buckets() - 1;
  while (bucket_weight(min_bucket_) < eps && min_bucket_ < last) ++min_bucket_;
  while (bucket_weight(max_bucket_) < eps && max_bucket_ > 0) --max_bucket_;
}

bool DecayingHistogram::empty() const { return bucket_weight(min_bucket_) < options_->epsilon(); }

double DecayingHistogram::percentile(double p) const {
  if (empty()) return 0.0;
  const double threshold = p * total_weight_;
  double partial = 0;
  int bucket = min_bucket_;
  for (; bucket < max_bucket_; ++bucket) {
    partial += bucket_weight(bucket);
    if (partial >= threshold) break;
  }
  if (bucket < options_->num_buckets() - 1) return options_->bucket_start(bucket + 1);
  return options_->bucket_start(bucket);
}

}  // namespace tailor::recommender
