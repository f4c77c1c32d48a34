#include "recommender/ensemble_histogram.h"

#include <cmath>

#include "recommender/checkpoint_text.h"

namespace tailor::recommender {
namespace {
// Rows are rescaled once the newest weight would exceed 2^40: float keeps 24 bits of mantissa,
// so weights older than ~20 half-lives are lost to rounding anyway.
constexpr double kMaxExponent = 40;
}  // namespace

EnsembleHistogram::EnsembleHistogram(const HistogramOptions& options,
                                     std::vector<Seconds> half_lives)
    : options_(&options),
      inverse_half_lives_(half_lives.size()),
      weights_(half_lives.size(), 0),
      totals_(half_lives.size(), arma::fill::zeros) {
  for (std::size_t k = 0; k < half_lives.size(); ++k) {
    inverse_half_lives_[k] = 1.0 / static_cast<double>(half_lives[k]);
  }
}

void EnsembleHistogram::rescale_to(Seconds new_reference) {
  const double age = static_cast<double>(new_reference - reference_);
  for (arma::uword k = 0; k < weights_.n_rows; ++k) {
    const double factor = std::exp2(-age * inverse_half_lives_[k]);
    weights_.row(k) *= static_cast<float>(factor);
    totals_[k] *= factor;
  }
  reference_ = new_reference;
}

arma::uword EnsembleHistogram::column(int bucket) {
  if (weights_.n_cols == 0) {
    weights_.zeros(weights_.n_rows, 1);
    first_bucket_ = bucket;
  } else if (bucket < first_bucket_) {
    weights_.insert_cols(0, first_bucket_ - bucket);
    first_bucket_ = bucket;
  } else if (bucket >= first_bucket_ + int(weights_.n_cols)) {
    weights_.insert_cols(weights_.n_cols, bucket - first_bucket_ - weights_.n_cols + 1);
  }
  return static_cast<arma::uword>(bucket - first_bucket_);
}

void EnsembleHistogram::add_sample(double value, Seconds time) {
  if (!std::isfinite(value) || value < 0) return;
  if (!has_reference_) {
    reference_ = time;
    has_reference_ = true;
  }
  const double age = static_cast<double>(time - reference_);
  if (age * inverse_half_lives_.max() > kMaxExponent) rescale_to(time);
  const arma::uword j = column(options_->find_bucket(value));
  const double now = static_cast<double>(time - reference_);
  for (arma::uword k = 0; k < weights_.n_rows; ++k) {
    const double w = std::exp2(now * inverse_half_lives_[k]);
    weights_(k, j) += static_cast<float>(w);
    totals_[k] += w;
  }
}

arma::mat EnsembleHistogram::percentiles(const arma::vec& ps) const {
  arma::mat out(weights_.n_rows, ps.n_elem, arma::fill::zeros);
  if (weights_.n_cols == 0) return out;
  // One walk per row serves every (ascending) percentile.
  const arma::vec& totals = totals_;
  for (arma::uword k = 0; k < weights_.n_rows; ++k) {
    if (!(totals[k] > 0)) continue;
    double cumulative = 0;
    arma::uword j = 0, i = 0;
    for (; i < ps.n_elem; ++i) {
      // First bucket whose cumulative weight reaches p of the total; report its end.
      const double threshold = ps[i] * totals[k];
      while (j + 1 < weights_.n_cols && cumulative + weights_(k, j) < threshold) {
        cumulative += weights_(k, j);
        ++j;
      }
      const int bucket = first_bucket_ + int(j);
      out(k, i) = bucket + 1 < options_->num_buckets() ? options_->bucket_start(bucket + 1)
                                                       : options_->bucket_start(bucket);
    }
  }
  return out;
}

std::size_t EnsembleHistogram::state_bytes() const {
  return sizeof(*this) + weights_.n_elem * sizeof(float) +
         (inverse_half_lives_.n_elem + totals_.n_elem) * sizeof(double);
}

void EnsembleHistogram::save(CheckpointWriter& out) const {
  out.integer(has_reference_).integer(reference_).integer(first_bucket_).integer(weights_.n_cols);
  out.reals(totals_.memptr(), totals_.n_elem).floats(weights_.memptr(), weights_.n_elem);
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
  const std::vector<double> totals = in.reals("histogram totals", weights_.n_rows);
  for (double t : totals) {
    if (t < 0) in.fail("histogram totals are negative");
  }
  const std::vector<float> weights =
      in.floats("histogram weights", weights_.n_rows * static_cast<std::size_t>(columns));
  has_reference_ = has_reference;
  reference_ = reference;
  first_bucket_ = static_cast<int>(first);
  totals_ = arma::vec(totals);
  weights_ = arma::fmat(weights.data(), weights_.n_rows, static_cast<arma::uword>(columns));
}

}  // namespace tailor::recommender
