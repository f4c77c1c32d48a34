#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "recommender/decaying_histogram.h"
#include "recommender/histogram_options.h"

namespace tailor::recommender {
namespace {

TEST(HistogramOptions, VpaCpuGeometry) {
  const auto& o = cpu_histogram_options();
  // ceil(log(1000 * 0.05 / 0.01 + 1) / log(1.05)) + 1
  EXPECT_EQ(o.num_buckets(), 176);
  EXPECT_DOUBLE_EQ(o.bucket_start(0), 0.0);
  EXPECT_DOUBLE_EQ(o.bucket_start(1), 0.01);
  EXPECT_NEAR(o.bucket_start(2), 0.0205, 1e-12);  // 0.01 + 0.01 * 1.05
  EXPECT_EQ(o.find_bucket(0.0), 0);
  EXPECT_EQ(o.find_bucket(0.0099), 0);
  EXPECT_EQ(o.find_bucket(0.015), 1);
  EXPECT_EQ(o.find_bucket(1.0), 36);
  EXPECT_EQ(o.find_bucket(5000.0), 175);  // beyond max: last bucket
  EXPECT_EQ(o.find_bucket(-1.0), 0);
}

TEST(HistogramOptions, VpaMemoryGeometry) {
  const auto& o = memory_histogram_options();
  EXPECT_EQ(o.num_buckets(), 176);
  EXPECT_DOUBLE_EQ(o.bucket_start(1), 1e7);
  EXPECT_EQ(o.find_bucket(1.2 * 1024 * 1024 * 1024), 41);
}

TEST(HistogramOptions, TableLookupAgreesWithLogFormulaEverywhere) {
  for (const HistogramOptions* o : {&cpu_histogram_options(), &memory_histogram_options()}) {
    for (int b = 0; b < o->num_buckets(); ++b) {
      const double s = o->bucket_start(b);
      for (double v : {s, std::nextafter(s, 0.0), std::nextafter(s, 1e300), s * 1.01}) {
        ASSERT_EQ(o->find_bucket(v), o->find_bucket_slow(v)) << "value " << v;
      }
    }
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> exponent(-4, 13);
    for (int i = 0; i < 100000; ++i) {
      double v = std::pow(10.0, exponent(rng)) * o->first_bucket_size();
      ASSERT_EQ(o->find_bucket(v), o->find_bucket_slow(v)) << "value " << v;
    }
  }
}

// The carried ensemble histogram decides "below the window" as value < bucket_threshold(start):
// exactly find_bucket(value) < start, for every bucket, also for the CPU level's 1 m buckets.
TEST(HistogramOptions, BucketThresholdSplitsValuesByBucket) {
  const HistogramOptions millicores(1000.0, 0.001, 1.05, 0.0001);
  for (const HistogramOptions* o :
       {&cpu_histogram_options(), &memory_histogram_options(), &millicores}) {
    EXPECT_EQ(o->bucket_threshold(0), -INFINITY);
    EXPECT_EQ(o->bucket_threshold(o->num_buckets()), INFINITY);
    for (int b = 1; b < o->num_buckets(); ++b) {
      const double t = o->bucket_threshold(b);
      ASSERT_EQ(o->find_bucket(t), b) << "bucket " << b;
      ASSERT_EQ(o->find_bucket(std::nextafter(t, 0.0)), b - 1) << "bucket " << b;
    }
    std::mt19937_64 rng(9);
    std::uniform_real_distribution<double> exponent(-4, 13);
    for (int i = 0; i < 100000; ++i) {
      const double v = std::pow(10.0, exponent(rng)) * o->first_bucket_size();
      const int b = o->find_bucket(v);
      ASSERT_TRUE(o->bucket_threshold(b) <= v && v < o->bucket_threshold(b + 1)) << "value " << v;
    }
  }
}

TEST(HistogramOptions, RejectsBadGeometry) {
  EXPECT_THROW(HistogramOptions(0, 0.01, 1.05, 1e-4), std::invalid_argument);
  EXPECT_THROW(HistogramOptions(1000, 0.01, 1.0, 1e-4), std::invalid_argument);
  EXPECT_THROW(HistogramOptions(1000, 0.01, 1.05, 0), std::invalid_argument);
}

TEST(DecayingHistogram, PercentileIsEndOfBucketReachingThreshold) {
  DecayingHistogram h(cpu_histogram_options(), kDay);
  EXPECT_TRUE(h.empty());
  EXPECT_EQ(h.percentile(0.9), 0.0);
  // 9 samples in bucket 1 ([0.01, 0.0205)), 1 in the bucket of 1.0 (36), same time.
  for (int i = 0; i < 9; ++i) h.add_sample(0.015, 1.0, 0);
  h.add_sample(1.0, 1.0, 0);
  EXPECT_NEAR(h.percentile(0.5), 0.0205, 1e-12);  // end of bucket 1
  EXPECT_NEAR(h.percentile(0.9), 0.0205, 1e-12);  // cumulative 9 >= 0.9 * 10
  EXPECT_NEAR(h.percentile(0.95), cpu_histogram_options().bucket_start(37), 1e-12);
  EXPECT_EQ(h.min_bucket(), 1);
  EXPECT_EQ(h.max_bucket(), 36);
}

TEST(DecayingHistogram, LastBucketReportsItsStart) {
  DecayingHistogram h(cpu_histogram_options(), kDay);
  h.add_sample(1e6, 1.0, 0);
  EXPECT_DOUBLE_EQ(h.percentile(0.5), cpu_histogram_options().bucket_start(175));
}

TEST(DecayingHistogram, WeightDoublesPerHalfLife) {
  DecayingHistogram h(cpu_histogram_options(), kDay);
  h.add_sample(0.015, 1.0, 0);       // reference = 0, factor 1
  h.add_sample(1.0, 1.0, kDay);      // factor 2
  h.add_sample(1.0, 1.0, kDay / 2);  // factor sqrt(2)
  EXPECT_DOUBLE_EQ(h.bucket_weight(1), 1.0);
  EXPECT_NEAR(h.bucket_weight(36), 2.0 + std::sqrt(2.0), 1e-6);
  EXPECT_NEAR(h.total_weight(), 3.0 + std::sqrt(2.0), 1e-6);
  // The old sample is 1/4.41 of the weight: p20 is in its bucket, p30 is not.
  EXPECT_NEAR(h.percentile(0.2), 0.0205, 1e-12);
  EXPECT_NEAR(h.percentile(0.3), cpu_histogram_options().bucket_start(37), 1e-12);
}

TEST(DecayingHistogram, ReferenceIsRoundedToHalfLifeAndShiftsAfter100HalfLives) {
  DecayingHistogram h(cpu_histogram_options(), kDay);
  h.add_sample(1.0, 1.0, kDay / 2 + 10);  // Go's Round: halfway and above round up
  EXPECT_EQ(h.reference(), kDay);
  const double p = h.percentile(0.5);
  h.add_sample(0.015, 1.0, kDay + 101 * kDay);  // past 100 half-lives: renormalize
  EXPECT_EQ(h.reference(), 102 * kDay);
  // The old sample now weighs ~2^-101.5: below epsilon, it is forgotten.
  EXPECT_EQ(h.min_bucket(), 1);
  EXPECT_EQ(h.max_bucket(), 1);
  EXPECT_NEAR(h.percentile(0.99), 0.0205, 1e-12);
  EXPECT_NE(p, h.percentile(0.99));
}

TEST(DecayingHistogram, SubtractClampsAndUpdatesRange) {
  DecayingHistogram h(memory_histogram_options(), kDay);
  h.add_sample(1e9, 1.0, 0);
  h.add_sample(2e9, 1.0, 0);
  h.subtract_sample(2e9, 5.0, 0);  // more than present: bucket goes to zero, not negative
  EXPECT_EQ(h.bucket_weight(memory_histogram_options().find_bucket(2e9)), 0.0);
  EXPECT_DOUBLE_EQ(h.total_weight(), 1.0);
  EXPECT_EQ(h.max_bucket(), memory_histogram_options().find_bucket(1e9));
}

TEST(DecayingHistogram, IgnoresPoisonousSamples) {
  DecayingHistogram h(cpu_histogram_options(), kDay);
  h.add_sample(NAN, 1.0, 0);
  h.add_sample(1.0, NAN, 0);
  h.add_sample(1.0, -1.0, 0);
  h.add_sample(INFINITY, 1.0, 0);
  EXPECT_TRUE(h.empty());
  EXPECT_EQ(h.total_weight(), 0.0);
}

TEST(DecayingHistogram, StateStaysSmall) {
  DecayingHistogram h(cpu_histogram_options(), kDay);
  for (int i = 0; i < 10000; ++i) h.add_sample(0.5 + 0.4 * std::sin(i), 1.0, i * 60);
  EXPECT_LT(h.state_bytes(), 400u);
}

}  // namespace
}  // namespace tailor::recommender
