#include "recommender/checkpoint.h"

#include <gtest/gtest.h>

#include <cmath>

#include "recommender/vpa_estimator.h"
#include "recommender/vpa_model.h"

namespace tailor::recommender {
namespace {

VpaContainerModel week_of_usage() {
  VpaContainerModel m;
  for (int i = 0; i < 7 * 288; ++i) {
    m.add_cpu_sample(i * 300, 0.5 + 0.3 * std::sin(i * 0.02), 1.0);
    m.add_memory_sample(i * 300, 1e9 + 2e8 * std::sin(i * 0.005));
  }
  return m;
}

TEST(Checkpoint, RoundTripKeepsTheRecommendation) {
  const VpaContainerModel m = week_of_usage();
  const std::string text = format_checkpoint(m.save());
  EXPECT_LT(text.size(), 1024u);
  VpaContainerModel restored;
  restored.load(parse_checkpoint(text));
  const Recommendation a = vpa_recommend(m), b = vpa_recommend(restored);
  EXPECT_EQ(a.target, b.target);
  EXPECT_EQ(a.lower_bound, b.lower_bound);
  EXPECT_EQ(a.upper_bound, b.upper_bound);
  EXPECT_DOUBLE_EQ(restored.confidence(), m.confidence());
  EXPECT_EQ(restored.memory_peaks().reference(), m.memory_peaks().reference());
  // Samples keep decaying against the restored reference.
  EXPECT_TRUE(restored.add_cpu_sample(7 * kDay, 0.5, 1.0));
  EXPECT_FALSE(restored.add_cpu_sample(kDay, 0.5, 1.0));  // older than the checkpoint
}

// Found by fuzz/recommender_checkpoint: the restored total weight was the sum of the rescaled
// bucket weights, a rounding away from the saved total, so every restart drifted it by an ulp.
TEST(Checkpoint, RestoreKeepsTheSavedTotalWeightExactly) {
  const std::string text =
      "v1;1000;2740;30;0;7.6134303836996118;4:10000,5:1001,6:499,7:750,8:998,9:750,10:1249,"
      "11:1249;86400;1.0080544613196576;19:10000";
  VpaContainerModel restored;
  restored.load(parse_checkpoint(text));
  EXPECT_EQ(format_checkpoint(restored.save()), text);
}

// Found by fuzz/recommender_checkpoint: a total weight beyond a float restored as infinite bucket
// weights, and the next save cast NaN to an integer.
TEST(Checkpoint, ATotalWeightBeyondAFloatIsRefused) {
  const std::string text =
      "v1;1000;2740;30;0;7.2e67;4:8000,2:8017,6:399,47:6109,11:20000;86400;1.000576;19:10000";
  VpaContainerModel restored;
  try {
    restored.load(parse_checkpoint(text));
    ADD_FAILURE() << "restored";
  } catch (const CheckpointError& e) {
    EXPECT_STREQ(e.what(), "checkpoint: histogram total weight must be at most 3.4e38 (a float)");
  }
}

// Found by fuzz/recommender_checkpoint: a zero-weight bucket listed below the others left the
// restored histogram's range starting at an empty bucket, so it read as empty and saved none.
TEST(Checkpoint, AZeroWeightBucketDoesNotEmptyTheRestoredHistogram) {
  const std::string text =
      "v1;1000;2740;30;0;7.613430383699611;84:8000,11:0;86400;1.0080544613196576;19:100";
  VpaContainerModel restored;
  restored.load(parse_checkpoint(text));
  EXPECT_EQ(format_checkpoint(restored.save()),
            "v1;1000;2740;30;0;7.6134303836996109;84:10000;86400;1.0080544613196576;19:10000");
}

// Found by fuzz/recommender_checkpoint: a histogram whose weights are all below epsilon saved its
// total without buckets, and the restore dropped the total and the reference, so the next save
// differed. Now the save carries what a restore keeps: the reference, no total.
TEST(Checkpoint, AHistogramWithoutWeightsSavesWhatItRestores) {
  const std::string text =
      "v1;1000;2740;30;0;72222222222226118;4:8000,2:8017,6:389,47:6109,11:2086400;41;0.0000576;"
      "19:10000";
  VpaContainerModel once;
  once.load(parse_checkpoint(text));
  const std::string saved = format_checkpoint(once.save());
  EXPECT_TRUE(saved.ends_with(";41;0;")) << saved;
  VpaContainerModel twice;
  twice.load(parse_checkpoint(saved));
  EXPECT_EQ(format_checkpoint(twice.save()), saved);
}

TEST(Checkpoint, WeightsAreScaledToTenThousand) {
  DecayingHistogram h(cpu_histogram_options(), kDay);
  h.add_sample(0.015, 3.0, 0);
  h.add_sample(1.0, 1.0, 0);
  const HistogramCheckpoint c = save_histogram(h);
  ASSERT_EQ(c.bucket_weights.size(), 2u);
  EXPECT_EQ(c.bucket_weights[0], (std::pair<int, std::uint32_t>{1, 10000}));
  EXPECT_EQ(c.bucket_weights[1], (std::pair<int, std::uint32_t>{36, 3333}));
  EXPECT_DOUBLE_EQ(c.total_weight, 4.0);
}

TEST(Checkpoint, CorruptCheckpointsAreRejectedWithAReason) {
  const std::string good = format_checkpoint(week_of_usage().save());
  struct Case {
    std::string text, message;
  };
  const Case cases[] = {
      {"", "unsupported version"},
      {"v2;0;1;2;0;1;1:1;0;1;1:1", "unsupported version"},
      {"v1;0;1;2", "has 4 fields, want 10"},
      {"v1;x;1;2;0;1;1:1;0;1;1:1", "first sample time is not a number: 'x'"},
      {"v1;5;1;2;0;1;1:1;0;1;1:1", "inconsistent"},
      {"v1;0;1;2;0;nan;1:1;0;1;1:1", "total weight"},
      {"v1;0;1;2;0;1;1-1;0;1;1:1", "is not bucket:weight"},
      {"v1;0;1;2;0;1;999:1;0;1;1:1", "bucket 999 outside [0, 175]"},
      {"v1;0;1;2;0;-1;1:1;0;1;1:1", "finite and >= 0"},
      {"v1;0;1;2;0;0;1:1;0;1;1:1", "zero total"},
  };
  for (const Case& c : cases) {
    VpaContainerModel m;
    try {
      m.load(parse_checkpoint(c.text));
      FAIL() << "accepted: " << c.text;
    } catch (const CheckpointError& e) {
      EXPECT_NE(std::string(e.what()).find(c.message), std::string::npos)
          << c.text << " -> " << e.what();
    }
    EXPECT_EQ(m.total_samples(), 0) << "a rejected checkpoint must not change the model";
    EXPECT_TRUE(m.cpu().empty());
  }
  VpaContainerModel fine;
  EXPECT_NO_THROW(fine.load(parse_checkpoint(good)));
  EXPECT_THROW(fine.load(parse_checkpoint(good)), CheckpointError);  // already has samples
}

}  // namespace
}  // namespace tailor::recommender
