#pragma once

#include <armadillo>
#include <vector>

#include "recommender/histogram_options.h"
#include "recommender/resources.h"

namespace tailor::recommender {

class CheckpointReader;
class CheckpointWriter;

// One exponential-bucket histogram per half-life, stored as the rows of one float matrix over
// the bucket range in use, so that all percentiles of all half-lives come out of one cumulative
// sum. Each row decays by 2^(-age / half_life); rows share a reference time that moves forward
// (rescaling the weights) long before floats could overflow.
class EnsembleHistogram {
 public:
  EnsembleHistogram(const HistogramOptions& options, std::vector<Seconds> half_lives);

  void add_sample(double value, Seconds time);  // non-finite or negative values are ignored
  // Bucket-end value of each percentile for each half-life: rows = half-lives, cols = ps
  // (ascending). Zero where a row is empty.
  arma::mat percentiles(const arma::vec& ps) const;
  bool empty() const { return weights_.n_cols == 0; }
  std::size_t state_bytes() const;
  // Checkpoint: the exact weights. load() reads into a histogram with the same options and
  // half-lives; it throws CheckpointError for weights that do not fit them.
  void save(CheckpointWriter& out) const;
  void load(CheckpointReader& in);

 private:
  void rescale_to(Seconds new_reference);
  arma::uword column(int bucket);  // grows the stored range to include bucket

  const HistogramOptions* options_;
  arma::vec inverse_half_lives_;  // 1 / half-life, per row
  arma::fmat weights_;            // column j is bucket first_bucket_ + j
  arma::vec totals_;              // row sums of weights_
  Seconds reference_ = 0;
  int first_bucket_ = 0;
  bool has_reference_ = false;
};

}  // namespace tailor::recommender
