#include "recommender/histogram_options.h"

#include <bit>
#include <cmath>
#include <stdexcept>

namespace tailor::recommender {
HistogramOptions::HistogramOptions(double max_value, double first_bucket_size, double ratio,
                                   double epsilon)
    : first_bucket_size_(first_bucket_size), ratio_(ratio), epsilon_(epsilon) {
  if (!(max_value > 0) || !(first_bucket_size > 0) || !(ratio > 1.0) || !(ratio < 2.0) ||
      !(epsilon > 0)) {
    throw std::invalid_argument(
        "histogram options: max value, first bucket size and epsilon must be > 0, ratio in (1, 2)");
  }
  num_buckets_ =
      static_cast<int>(std::ceil(std::log(log_argument(max_value)) / std::log(ratio))) + 1;
  argument_scale_ = (ratio - 1) / first_bucket_size;
  starts_.resize(num_buckets_);
  starts_[0] = 0.0;
  for (int b = 1; b < num_buckets_; ++b) {
    starts_[b] = first_bucket_size * (std::pow(ratio, b) - 1) / (ratio - 1);
  }
  // Exact per-bucket thresholds: the smallest value whose reference bucket is >= b.
  threshold_.resize(num_buckets_ + 1);
  threshold_[0] = -INFINITY;
  for (int b = 1; b <= num_buckets_; ++b) {
    double v = first_bucket_size * (std::pow(ratio, b) - 1) / (ratio - 1);
    const int target = std::min(b, num_buckets_ - 1);
    if (b == num_buckets_) {
      threshold_[b] = INFINITY;  // nothing lies beyond the last bucket
      continue;
    }
    while (find_bucket_slow(v) >= target) v = std::nextafter(v, 0.0);
    while (find_bucket_slow(v) < target) v = std::nextafter(v, INFINITY);
    threshold_[b] = v;
  }
  key_base_ = table_key(1.0);
  const std::uint32_t key_end = table_key(log_argument(threshold_[num_buckets_ - 1])) + 1;
  table_.resize(key_end - key_base_);
  table_cells_ = static_cast<std::uint32_t>(table_.size());
  std::vector<int> bucket_at(table_.size() + 1);  // the bucket of each cell's start
  int b = 0;
  for (std::uint32_t k = key_base_; k <= key_end; ++k) {
    const double cell_start = std::bit_cast<double>(static_cast<std::uint64_t>(k) << kDroppedBits);
    while (b + 1 < num_buckets_ && log_argument(threshold_[b + 1]) <= cell_start) ++b;
    bucket_at[k - key_base_] = b;
  }
  // A boundary lies in cell j when cell j + 1 starts in another bucket. A value whose key is k
  // lies in cell k - 1, k or k + 1: the cell is flagged when a boundary lies in any of them.
  const std::size_t cells = table_.size();
  auto boundary_in = [&](std::size_t j) { return j < cells && bucket_at[j + 1] != bucket_at[j]; };
  for (std::size_t k = 0; k < cells; ++k) {
    const bool near = (k > 0 && boundary_in(k - 1)) || boundary_in(k) || boundary_in(k + 1);
    table_[k] = static_cast<std::uint16_t>(bucket_at[k] << 1 | static_cast<int>(near));
  }
}

int HistogramOptions::find_bucket_slow(double value) const {
  if (!(value >= first_bucket_size_)) return 0;
  int bucket = static_cast<int>(std::log(log_argument(value)) / std::log(ratio_));
  return bucket >= num_buckets_ ? num_buckets_ - 1 : bucket;
}

const HistogramOptions& cpu_histogram_options() {
  static const HistogramOptions options(1000.0, 0.01, 1.05, 0.001 * 0.1);
  return options;
}

const HistogramOptions& millicore_cpu_histogram_options() {
  static const HistogramOptions options(1000.0, 0.001, 1.05, 0.001 * 0.1);
  return options;
}

const HistogramOptions& memory_histogram_options() {
  static const HistogramOptions options(1e12, 1e7, 1.05, 0.001 * 0.1);
  return options;
}

}  // namespace tailor::recommender
