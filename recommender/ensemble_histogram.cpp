#include "recommender/ensemble_histogram.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "recommender/checkpoint_text.h"

namespace tailor::recommender {
namespace {
// Rows are rescaled once the newest weight would exceed 2^40: float keeps 24 bits of mantissa,
// so weights older than ~20 half-lives are lost to rounding anyway.
constexpr double kMaxExponent = 40;
}  // namespace

EnsembleHistogram::EnsembleHistogram(const HistogramOptions& options,
                                     const std::vector<Seconds>& half_lives)
    : options_(&options),
      doubles_(new double[2 * half_lives.size()]()),
      rows_(static_cast<std::int32_t>(half_lives.size())) {
  for (int k = 0; k < rows_; ++k) doubles_[k] = 1.0 / static_cast<double>(half_lives[k]);
}

void EnsembleHistogram::rescale_to(Seconds new_reference) {
  const double age = static_cast<double>(new_reference - reference_);
  for (int k = 0; k < rows_; ++k) {
    const double factor = std::exp2(-age * inverse_half_life(k));
    const float f = static_cast<float>(factor);
    for (int j = 0; j < columns_; ++j) weights_[static_cast<std::size_t>(j) * rows_ + k] *= f;
    total(k) *= factor;
  }
  reference_ = new_reference;
}

int EnsembleHistogram::column(int bucket) {
  if (columns_ > 0 && bucket >= first_bucket_ && bucket < first_bucket_ + columns_) {
    return bucket - first_bucket_;
  }
  // Grow to exactly the new range: it settles after a few samples, and the state stays small.
  const int lo = columns_ == 0 ? bucket : std::min(bucket, first_bucket_);
  const int hi = columns_ == 0 ? bucket : std::max(bucket, first_bucket_ + columns_ - 1);
  std::unique_ptr<float[]> grown(new float[static_cast<std::size_t>(hi - lo + 1) * rows_]());
  if (columns_ > 0) {
    std::memcpy(grown.get() + static_cast<std::size_t>(first_bucket_ - lo) * rows_, weights_.get(),
                sizeof(float) * columns_ * rows_);
  }
  weights_ = std::move(grown);
  first_bucket_ = lo;
  columns_ = hi - lo + 1;
  return bucket - first_bucket_;
}

void EnsembleHistogram::add_sample(double value, Seconds time) {
  if (!std::isfinite(value) || value < 0) return;
  if (!has_reference_) {
    reference_ = time;
    has_reference_ = true;
  }
  double max_inverse = 0;
  for (int k = 0; k < rows_; ++k) max_inverse = std::max(max_inverse, inverse_half_life(k));
  const double age = static_cast<double>(time - reference_);
  if (age * max_inverse > kMaxExponent) rescale_to(time);
  const int j = column(options_->find_bucket(value));
  const double now = static_cast<double>(time - reference_);
  float* col = weights_.get() + static_cast<std::size_t>(j) * rows_;
  for (int k = 0; k < rows_; ++k) {
    const double w = std::exp2(now * inverse_half_life(k));
    col[k] += static_cast<float>(w);
    total(k) += w;
  }
}

void EnsembleHistogram::percentiles(const double* ps, std::size_t n, double* out) const {
  std::fill(out, out + n * rows_, 0.0);
  if (columns_ == 0) return;
  // One walk per row serves every (ascending) percentile.
  for (int k = 0; k < rows_; ++k) {
    if (!(total(k) > 0)) continue;
    double cumulative = 0;
    int j = 0;
    for (std::size_t i = 0; i < n; ++i) {
      // First bucket whose cumulative weight reaches p of the total; report its end.
      const double threshold = ps[i] * total(k);
      while (j + 1 < columns_ && cumulative + weight(k, j) < threshold) {
        cumulative += weight(k, j);
        ++j;
      }
      const int bucket = first_bucket_ + j;
      out[k * n + i] = bucket + 1 < options_->num_buckets() ? options_->bucket_start(bucket + 1)
                                                            : options_->bucket_start(bucket);
    }
  }
}

std::size_t EnsembleHistogram::state_bytes() const {
  return sizeof(*this) + static_cast<std::size_t>(columns_) * rows_ * sizeof(float) +
         2 * rows_ * sizeof(double);
}

void EnsembleHistogram::save(CheckpointWriter& out) const {
  out.integer(has_reference_).integer(reference_).integer(first_bucket_).integer(columns_);
  out.reals(doubles_.get() + rows_, rows_)
      .floats(weights_.get(), static_cast<std::size_t>(columns_) * rows_);
}

void EnsembleHistogram::load(CheckpointReader& in) {
  const bool has_reference = in.integer("histogram reference flag") != 0;
  const Seconds reference = in.integer("histogram reference");
  const std::int64_t first = in.integer("histogram first bucket");
  const std::int64_t columns = in.integer("histogram bucket count");
  if (first < 0 || columns < 0 || first + columns > options_->num_buckets()) {
    in.fail("histogram buckets [" + std::to_string(first) + ", " + std::to_string(first + columns) +
            ") outside [0, " + std::to_string(options_->num_buckets()) + ")");
  }
  const std::vector<double> totals = in.reals("histogram totals", rows_);
  for (double t : totals) {
    if (t < 0) in.fail("histogram totals are negative");
  }
  const std::vector<float> weights =
      in.floats("histogram weights", static_cast<std::size_t>(rows_) * columns);
  has_reference_ = has_reference;
  reference_ = reference;
  first_bucket_ = static_cast<std::int32_t>(first);
  columns_ = static_cast<std::int32_t>(columns);
  std::copy(totals.begin(), totals.end(), doubles_.get() + rows_);
  weights_.reset(columns_ > 0 ? new float[weights.size()] : nullptr);
  std::copy(weights.begin(), weights.end(), weights_.get());
}

}  // namespace tailor::recommender
