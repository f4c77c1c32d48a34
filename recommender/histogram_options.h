#pragma once

#include <cstdint>
#include <vector>

namespace tailor::recommender {

// Exponential bucket geometry as in VPA: bucket 0 covers [0, first_bucket_size); bucket n >= 1
// starts at first_bucket_size * (ratio^n - 1) / (ratio - 1); the last bucket is open-ended.
// Bucket lookup is a table walk over the float exponent/mantissa of the log argument, then one
// comparison against exact thresholds, so it agrees with floor(log(y)/log(ratio)) without a log.
class HistogramOptions {
 public:
  // Throws std::invalid_argument unless max_value, first_bucket_size, epsilon > 0, ratio > 1.
  HistogramOptions(double max_value, double first_bucket_size, double ratio, double epsilon);

  int num_buckets() const { return num_buckets_; }
  int find_bucket(double value) const;
  // The reference formula (one log per call); find_bucket must agree with it.
  int find_bucket_slow(double value) const;
  double bucket_start(int bucket) const;  // bucket in [0, num_buckets)
  double epsilon() const { return epsilon_; }
  double first_bucket_size() const { return first_bucket_size_; }
  double ratio() const { return ratio_; }

 private:
  double log_argument(double value) const { return value * (ratio_ - 1) / first_bucket_size_ + 1; }
  static std::uint32_t table_key(double y);

  int num_buckets_;
  double first_bucket_size_;
  double ratio_;
  double epsilon_;
  std::vector<double> threshold_;     // threshold_[b]: smallest log argument in bucket b
  std::vector<std::uint16_t> table_;  // candidate bucket per table_key
  std::uint32_t key_base_ = 0;
};

// VPA's defaults (model/aggregations_config.go): CPU in cores, 10 millicores first bucket up to
// 1000 cores; memory in bytes, 10 MB first bucket up to 1 TB; ratio 1.05; epsilon 0.001 * 0.1.
const HistogramOptions& cpu_histogram_options();
const HistogramOptions& memory_histogram_options();

}  // namespace tailor::recommender
