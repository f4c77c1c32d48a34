#pragma once

#include <array>
#include <cmath>
#include <cstdint>

#include "recommender/histogram_options.h"

namespace tailor::recommender {

// VPA quantizes CPU usage to whole millicores before it picks a bucket, so for the CPU histogram
// the bucket is a function of an integer: a byte table indexed by millicores answers it for
// every usage below 65.536 cores with one load (no divide, no float key, no threshold
// correction). Larger usages take HistogramOptions::find_bucket on millicores / 1000, the value
// the table was built from, so both paths agree exactly.
class MillicoreBuckets {
 public:
  static constexpr std::int64_t kTabulated = 1 << 16;

  explicit MillicoreBuckets(const HistogramOptions& options);

  // The bucket of `cores` (finite, >= 0) after VPA's quantization to whole millicores.
  int find_bucket(double cores) const {
    const double millicores = cores * 1000.0;
    if (millicores < static_cast<double>(kTabulated)) [[likely]] {
      return table_[static_cast<std::uint32_t>(millicores)];  // truncation: floor, as VPA
    }
    return find_bucket_untabulated(millicores);
  }

  // The value VPA would bucket for `millicores`: whole millicores / 1000.
  static double quantized_cores(double millicores) { return std::floor(millicores) / 1000.0; }

 private:
  int find_bucket_untabulated(double millicores) const;

  const HistogramOptions* options_;
  std::array<std::uint8_t, kTabulated> table_;
};

// The table for VPA's CPU histogram geometry (cpu_histogram_options()).
const MillicoreBuckets& cpu_millicore_buckets();

}  // namespace tailor::recommender
