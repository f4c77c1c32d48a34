#include "recommender/millicore_buckets.h"

#include <gtest/gtest.h>

#include <cmath>

namespace tailor::recommender {
namespace {

// VPA: ResourceAmount(cores * 1000) whole millicores, CoresFromCPUAmount = amount / 1000.0, then
// the bucket from the log formula (histogram.go's GetBucket).
int vpa_bucket(double cores) {
  return cpu_histogram_options().find_bucket_slow(std::floor(cores * 1000.0) / 1000.0);
}

TEST(MillicoreBuckets, AgreesWithVpaOnEveryTabulatedMillicoreAndBetween) {
  const MillicoreBuckets& b = cpu_millicore_buckets();
  for (int m = 0; m < MillicoreBuckets::kTabulated + 2000; ++m) {
    for (double fraction : {0.0, 0.25, 0.999}) {
      const double cores = (m + fraction) / 1000.0;
      ASSERT_EQ(b.find_bucket(cores), vpa_bucket(cores)) << "cores " << cores;
    }
  }
}

TEST(MillicoreBuckets, LargeUsageTakesTheSameGeometry) {
  const MillicoreBuckets& b = cpu_millicore_buckets();
  for (double cores : {65.535, 65.536, 65.5369, 100.0, 999.999, 1000.0, 5000.0, 1e12}) {
    EXPECT_EQ(b.find_bucket(cores), vpa_bucket(cores)) << "cores " << cores;
  }
  EXPECT_EQ(b.find_bucket(5000.0), cpu_histogram_options().num_buckets() - 1);
}

TEST(MillicoreBuckets, QuantizesBeforeBucketing) {
  const MillicoreBuckets& b = cpu_millicore_buckets();
  EXPECT_EQ(b.find_bucket(0.0), 0);
  EXPECT_EQ(b.find_bucket(0.0099), 0);
  EXPECT_EQ(b.find_bucket(1.0), 36);
  EXPECT_EQ(b.find_bucket(1.0009), 36);
  // 0.01 cores is bucket 1's first value; 0.0100099 is still 10 millicores.
  EXPECT_EQ(b.find_bucket(0.0100099), 1);
}

}  // namespace
}  // namespace tailor::recommender
