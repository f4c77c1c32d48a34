// The default strategy's compact histogram (16-bit counts over a window of buckets, lumps
// outside it) against exact float-free decayed weights.
#include "recommender/ensemble_histogram.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "recommender/checkpoint.h"
#include "recommender/checkpoint_text.h"

namespace tailor::recommender {
namespace {

using Bucket = EnsembleHistogram::Bucket;
const std::vector<Seconds> kHalfLives = {2 * kHour, 12 * kHour, 2 * kDay};
// The default's CPU percentiles; the 100th is tested apart (a value fades out of 16-bit counts
// after some half-lives, out of the exact weights never).
const std::vector<double> kPercentiles = {0.8, 0.9, 0.95, 0.99};

// Exact decayed weights per bucket (doubles, relative to the first sample's time).
struct Reference {
  const HistogramOptions& options = cpu_histogram_options();
  std::vector<std::vector<double>> weights =
      std::vector<std::vector<double>>(kHalfLives.size(), std::vector<double>(256, 0.0));
  Seconds origin = -1;
  void add(double value, Seconds t) {
    if (origin < 0) origin = t;
    for (std::size_t k = 0; k < kHalfLives.size(); ++k) {
      weights[k][options.find_bucket(value)] +=
          std::exp2(static_cast<double>(t - origin) / static_cast<double>(kHalfLives[k]));
    }
  }
  int percentile(std::size_t k, double p) const {
    double total = 0, cumulative = 0;
    for (double w : weights[k]) total += w;
    int last = 0;
    for (int b = 0; b < 256; ++b) {
      if (weights[k][b] > 0) last = b;
    }
    for (int b = 0; b < 256; ++b) {
      cumulative += weights[k][b];
      if (cumulative >= p * total) return std::min(b, last);
    }
    return last;
  }
};

std::vector<Bucket> answers(EnsembleHistogram& h) {
  std::vector<Bucket> out(kHalfLives.size() * kPercentiles.size());
  h.percentile_buckets(kPercentiles.data(), kPercentiles.size(), out.data());
  return out;
}

TEST(EnsembleHistogram, MatchesExactWeightsWhileThePercentilesFitTheWindow) {
  EnsembleHistogram h(cpu_histogram_options(), kHalfLives, 42);
  Reference exact;
  std::mt19937 rng(7);
  std::lognormal_distribution<double> usage(std::log(0.5), 0.3);  // within a factor 3
  int checks = 0, equal = 0;
  for (Seconds t = 0; t < 10 * kDay; t += 300) {
    const double u = usage(rng);
    h.add_sample(u, t, kHalfLives);
    exact.add(u, t);
    const std::vector<Bucket> got = answers(h);
    for (std::size_t k = 0; k < kHalfLives.size(); ++k) {
      for (std::size_t i = 0; i < kPercentiles.size(); ++i) {
        const int want = exact.percentile(k, kPercentiles[i]);
        const int have = got[k * kPercentiles.size() + i];
        ++checks;
        equal += have == want;
        // 16-bit counts round; at most one bucket off when a threshold falls on a boundary.
        ASSERT_LE(std::abs(have - want), 1) << "t " << t << " row " << k << " p " << kPercentiles[i]
                                            << " have " << have << " want " << want;
      }
    }
  }
  EXPECT_GE(equal, checks * 995 / 1000) << equal << " of " << checks;
}

TEST(EnsembleHistogram, PercentilesOutsideTheWindowAreNeverBelowTheTruth) {
  // Idle at 20 millicores with bursts to 8 cores: 60 buckets apart, wider than the window.
  EnsembleHistogram h(cpu_histogram_options(), kHalfLives, 16);
  Reference exact;
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> jitter(0.7, 1.3);
  int from_lumps = 0;
  for (Seconds t = 0; t < 6 * kDay; t += 300) {
    const bool burst = (t / kHour) % 6 == 0;
    const double u = burst ? 8.0 * jitter(rng) * jitter(rng) * jitter(rng) : 0.02 * jitter(rng);
    h.add_sample(u, t, kHalfLives);
    exact.add(u, t);
    const std::vector<Bucket> got = answers(h);
    for (std::size_t k = 0; k < kHalfLives.size(); ++k) {
      for (std::size_t i = 0; i < kPercentiles.size(); ++i) {
        const int want = exact.percentile(k, kPercentiles[i]);
        const int have = got[k * kPercentiles.size() + i];
        ASSERT_GE(have + 1, want) << "t " << t << " row " << k << " p " << kPercentiles[i];
        from_lumps += have > want + 1;
      }
    }
  }
  EXPECT_GT(from_lumps, 0);  // the case was exercised: some answers came from a lump
}

TEST(EnsembleHistogram, TheHundredthPercentileIsTheLargestRecentValue) {
  EnsembleHistogram h(memory_histogram_options(), kHalfLives, 4);
  const double gib = 1024.0 * 1024 * 1024;
  for (Seconds t = 0; t < kDay; t += 300) h.add_sample(gib, t, kHalfLives);
  h.add_sample(16 * gib, kDay, kHalfLives);  // far above the 4-bucket window
  for (Seconds t = kDay + 300; t < kDay + 4 * kHour; t += 300) h.add_sample(gib, t, kHalfLives);
  const double p100 = 1.0;
  std::vector<Bucket> out(kHalfLives.size());
  h.percentile_buckets(&p100, 1, out.data());
  for (Bucket b : out) {
    EXPECT_EQ(b, memory_histogram_options().find_bucket(16 * gib));
  }
}

TEST(EnsembleHistogram, OldWeightFadesOutAfterSixteenHalfLives) {
  const std::vector<Seconds> one = {kHour};
  EnsembleHistogram h(cpu_histogram_options(), one, 42);
  h.add_sample(4.0, 0, one);
  const double p100 = 1.0;
  Bucket b = 0;
  for (Seconds t = 300; t < 10 * kHour; t += 300) h.add_sample(0.5, t, one);
  h.percentile_buckets(&p100, 1, &b);
  EXPECT_EQ(b, cpu_histogram_options().find_bucket(4.0));  // 10 half-lives: still counted
  for (Seconds t = 10 * kHour; t < 20 * kHour; t += 300) h.add_sample(0.5, t, one);
  h.percentile_buckets(&p100, 1, &b);
  EXPECT_EQ(b, cpu_histogram_options().find_bucket(0.5));  // 20: below one count in 65536
}

TEST(EnsembleHistogram, CheckpointRoundTripsAndRefusesBadCounts) {
  EnsembleHistogram h(cpu_histogram_options(), kHalfLives, 42);
  for (Seconds t = 0; t < 2 * kDay; t += 300) h.add_sample(0.3 + 0.001 * (t % 7000), t, kHalfLives);
  CheckpointWriter out("h");
  h.save(out);
  EnsembleHistogram copy(cpu_histogram_options(), kHalfLives, 42);
  CheckpointReader in(out.str(), "h");
  copy.load(in, kHalfLives);
  in.finish();
  CheckpointWriter again("h");
  copy.save(again);
  EXPECT_EQ(again.str(), out.str());
  EXPECT_EQ(answers(copy), answers(h));

  std::string bad = out.str();
  bad.replace(bad.rfind(';') + 1, 1, "70000");  // a count above 65535
  EnsembleHistogram fresh(cpu_histogram_options(), kHalfLives, 42);
  CheckpointReader bad_in(bad, "h");
  try {
    fresh.load(bad_in, kHalfLives);
    FAIL() << "accepted";
  } catch (const CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find("count out of range"), std::string::npos) << e.what();
  }
}

// The walk starts where the first percentile was last answered; a histogram restored from its
// checkpoint walks from its first column. Both must answer alike after every sample, through
// rises, falls, bursts into and out of the lumps (window moves) and halvings.
TEST(EnsembleHistogram, TheWalkFromTheLastAnswerFindsWhatAFreshWalkFinds) {
  EnsembleHistogram h(cpu_histogram_options(), kHalfLives, 12);
  std::mt19937 random(7);
  std::lognormal_distribution<double> noise(0, 0.3);
  double level = 0.5;
  for (Seconds t = 0; t < 6 * kDay; t += 300) {
    if (t % (9 * kHour) == 0) level *= (t / kHour) % 2 ? 4.0 : 0.2;  // far out of the window
    const double burst = random() % 50 == 0 ? 20.0 : 1.0;
    h.add_sample(level * noise(random) * burst, t, kHalfLives);
    CheckpointWriter out("h");
    h.save(out);
    EnsembleHistogram fresh(cpu_histogram_options(), kHalfLives, 12);
    CheckpointReader in(out.str(), "h");
    fresh.load(in, kHalfLives);
    ASSERT_EQ(answers(fresh), answers(h)) << "at " << t;
  }
}

// The checkpoint's fields without the weights and carries: the window, the lumps' highest
// buckets, exponents, lumps and counts. (Carried weights differ from exact ones by roundings,
// and so, by a float rounding at times, do the carries rounded from them.)
std::string saved_counts(const EnsembleHistogram& h) {
  CheckpointWriter out("h");
  h.save(out);
  const std::string text = out.str();
  // Fields: tag, flag, start, below, above, last time, rows, weights, carries, counts.
  std::size_t weights = 0;
  for (int field = 0; field < 7; ++field) weights = text.find(';', weights) + 1;
  return text.substr(0, weights) + text.substr(text.find(';', text.find(';', weights) + 1) + 1);
}

// Carrying each row's weight from sample to sample (one multiplication by the gap's growth)
// counts what exact weights (one exp2 per row and sample) count: over a week of one-minute
// samples with bursts, gaps of other lengths and a step back in time, the percentiles and the
// counts agree every hour. The carried path also decides "below the window" on the value (not
// the bucket) and skips the bucket lookup under the below lump's highest bucket; hence also 1 m
// buckets, where the window's first bucket sits among the samples.
TEST(EnsembleHistogram, CarriedWeightsCountWhatExactWeightsCount) {
  const HistogramOptions millicores(1000.0, 0.001, 1.05, 0.0001);
  for (const HistogramOptions* options : {&cpu_histogram_options(), &millicores}) {
    EnsembleHistogram exact(*options, kHalfLives, 12);
    EnsembleHistogram carried(*options, kHalfLives, 12);
    std::mt19937 random(11);
    std::lognormal_distribution<double> noise(0, 0.3);
    Seconds t = 0;
    for (int i = 0; i < 7 * 1440; ++i) {
      t += i % 997 == 0 ? 3 * kHour : (i % 1499 == 0 ? -120 : 60);
      const double value = noise(random) * (random() % 50 == 0 ? 20.0 : 1.0);
      exact.add_sample(value, t, kHalfLives);
      carried.add_carried_sample(value, t, kHalfLives);
      if (i % 60 == 0) {
        ASSERT_EQ(answers(carried), answers(exact)) << "at " << t;
        ASSERT_EQ(saved_counts(carried), saved_counts(exact)) << "at " << t;
      }
    }
    EXPECT_EQ(saved_counts(carried), saved_counts(exact));
  }
}

TEST(EnsembleHistogram, RejectsShapesItCannotHold) {
  EXPECT_THROW(EnsembleHistogram(cpu_histogram_options(), kHalfLives, 1), std::invalid_argument);
  EXPECT_THROW(EnsembleHistogram(cpu_histogram_options(), {}, 42), std::invalid_argument);
  const HistogramOptions fine(1000.0, 0.01, 1.01, 1e-4);  // ~900 buckets: more than a byte
  EXPECT_THROW(EnsembleHistogram(fine, kHalfLives, 42), std::invalid_argument);
}

}  // namespace
}  // namespace tailor::recommender
