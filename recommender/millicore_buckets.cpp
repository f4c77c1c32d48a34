#include "recommender/millicore_buckets.h"

#include <stdexcept>

namespace tailor::recommender {

MillicoreBuckets::MillicoreBuckets(const HistogramOptions& options) : options_(&options) {
  if (options.num_buckets() > 256) {
    throw std::invalid_argument("millicore buckets: more than 256 buckets do not fit a byte");
  }
  for (std::int64_t m = 0; m < kTabulated; ++m) {
    table_[m] = static_cast<std::uint8_t>(options.find_bucket(quantized_cores(double(m))));
  }
}

int MillicoreBuckets::find_bucket_untabulated(double millicores) const {
  return options_->find_bucket(quantized_cores(millicores));
}

const MillicoreBuckets& cpu_millicore_buckets() {
  static const MillicoreBuckets buckets(cpu_histogram_options());
  return buckets;
}

}  // namespace tailor::recommender
