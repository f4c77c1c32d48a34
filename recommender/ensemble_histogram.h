#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "recommender/histogram_options.h"
#include "recommender/resources.h"

namespace tailor::recommender {

class CheckpointReader;
class CheckpointWriter;

// One exponential-bucket histogram per half-life, stored as one float array over the bucket
// range in use (column j holds bucket first_bucket_ + j of every row, rows adjacent), so that
// all percentiles of all half-lives come out of one walk per row. Each row decays by
// 2^(-age / half_life); rows share a reference time that moves forward (rescaling the weights)
// long before floats could overflow. No per-sample allocation: the arrays grow only when a
// sample lands outside the range in use.
class EnsembleHistogram {
 public:
  EnsembleHistogram(const HistogramOptions& options, const std::vector<Seconds>& half_lives);

  void add_sample(double value, Seconds time);  // non-finite or negative values are ignored
  // Bucket-end value of each percentile for each half-life: out[k * n + i] is percentile ps[i]
  // (ascending) of row k. Zero where a row is empty.
  void percentiles(const double* ps, std::size_t n, double* out) const;
  int rows() const { return rows_; }
  bool empty() const { return columns_ == 0; }
  std::size_t state_bytes() const;
  // Checkpoint: the exact weights. load() reads into a histogram with the same options and
  // half-lives; it throws CheckpointError for weights that do not fit them.
  void save(CheckpointWriter& out) const;
  void load(CheckpointReader& in);

 private:
  void rescale_to(Seconds new_reference);
  int column(int bucket);  // grows the stored range to include bucket
  double inverse_half_life(int k) const { return doubles_[k]; }
  double& total(int k) { return doubles_[rows_ + k]; }
  double total(int k) const { return doubles_[rows_ + k]; }
  float weight(int k, int j) const { return weights_[static_cast<std::size_t>(j) * rows_ + k]; }

  const HistogramOptions* options_;
  std::unique_ptr<double[]> doubles_;  // 1 / half-life per row, then the row totals
  std::unique_ptr<float[]> weights_;   // columns_ x rows_, column j is bucket first_bucket_ + j
  Seconds reference_ = 0;
  std::int32_t first_bucket_ = 0;
  std::int32_t columns_ = 0;
  std::int32_t rows_ = 0;
  bool has_reference_ = false;
};

}  // namespace tailor::recommender
