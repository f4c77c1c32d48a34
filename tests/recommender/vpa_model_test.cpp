#include "recommender/vpa_model.h"

#include <gtest/gtest.h>

#include <cmath>

#include "recommender/update_rule.h"
#include "recommender/vpa_estimator.h"

namespace tailor::recommender {
namespace {

constexpr double kGiB = 1024.0 * 1024 * 1024;

TEST(VpaModel, ConfidenceCountsSamplesAsOncePerMinute) {
  VpaContainerModel m;
  // One day of 5-minute samples: span 1 day, but 288 / 1440 = 0.2 "days" of samples.
  for (int i = 0; i <= 288; ++i) m.add_cpu_sample(i * 300, 0.5, 1.0);
  EXPECT_NEAR(m.confidence(), 289.0 / 1440, 1e-12);
  VpaContainerModel minute;
  for (int i = 0; i <= 1440; ++i) minute.add_cpu_sample(i * 60, 0.5, 1.0);
  EXPECT_NEAR(minute.confidence(), 1.0, 1e-12);  // min(1 day, 1441/1440)
}

TEST(VpaModel, CpuSampleWeightIsRequestWithFloor) {
  VpaContainerModel m;
  m.add_cpu_sample(0, 0.015, 0.02);  // weight max(0.02, 0.1) = 0.1
  m.add_cpu_sample(1, 1.0, 0.9);     // weight 0.9
  EXPECT_NEAR(m.cpu().bucket_weight(1), 0.1, 1e-6);
  EXPECT_NEAR(m.cpu().bucket_weight(36), 0.9 * std::exp2(1.0 / kDay), 1e-6);
}

TEST(VpaModel, RejectsBadAndOutOfOrderSamples) {
  VpaContainerModel m;
  EXPECT_TRUE(m.add_cpu_sample(100, 0.5, 1));
  EXPECT_FALSE(m.add_cpu_sample(100, 0.5, 1));  // duplicate
  EXPECT_FALSE(m.add_cpu_sample(50, 0.5, 1));   // out of order
  EXPECT_FALSE(m.add_cpu_sample(200, NAN, 1));
  EXPECT_FALSE(m.add_cpu_sample(200, -1, 1));
  EXPECT_FALSE(m.add_memory_sample(200, INFINITY));
  EXPECT_TRUE(m.add_memory_sample(200, 1e9));
  EXPECT_FALSE(m.add_memory_sample(100, 2e9));
  EXPECT_EQ(m.total_samples(), 1);
}

TEST(VpaModel, OneMemoryPeakPerDay) {
  VpaContainerModel m;
  m.add_memory_sample(0, 1e9);
  m.add_memory_sample(kHour, 2e9);        // same interval, higher: replaces the peak
  m.add_memory_sample(2 * kHour, 1.5e9);  // lower: ignored
  EXPECT_NEAR(m.memory_peaks().total_weight(), 1.0, 1e-6);
  const int b2 = memory_histogram_options().find_bucket(2e9);
  EXPECT_EQ(m.memory_peaks().min_bucket(), b2);
  EXPECT_EQ(m.memory_peaks().max_bucket(), b2);
  m.add_memory_sample(kDay, 1e9);  // next interval: a second peak, stamped one day later
  EXPECT_NEAR(m.memory_peaks().total_weight(), 1.0 + 2.0, 1e-5);
}

TEST(VpaEstimator, HandComputedTarget) {
  VpaContainerModel m;
  for (int i = 0; i < 100; ++i) m.add_cpu_sample(i * 60, 1.0, 1.0);
  m.add_memory_sample(0, 1e9);
  const Recommendation r = vpa_recommend(m);
  // p90 CPU: end of the bucket of 1.0 (36) = 0.01 * (1.05^37 - 1) / 0.05 = 1.01628 -> 1016 m;
  // + floor(1016 * 0.15) = 152 m -> 1.168 cores.
  EXPECT_DOUBLE_EQ(r.target.cpu_cores, 1.168);
  // Memory: end of bucket of 1e9 -> then +15%, truncated to whole bytes.
  const auto& o = memory_histogram_options();
  const double end = std::floor(o.bucket_start(o.find_bucket(1e9) + 1));
  EXPECT_DOUBLE_EQ(r.target.memory_bytes, end + std::floor(end * 0.15));
  EXPECT_EQ(r.uncapped_target, r.target);
}

TEST(VpaEstimator, ConfidenceMultipliersShapeBounds) {
  EXPECT_DOUBLE_EQ(confidence_scale(1.0, 1.0, 1.0), 2.0);              // 24h history: x2
  EXPECT_DOUBLE_EQ(confidence_scale(0.5, 1.0, 1.0), 3.0);              // 12h: x3
  EXPECT_NEAR(confidence_scale(7.0, 1.0, 1.0), 1.142857, 1e-6);        // a week: x1.14
  EXPECT_NEAR(confidence_scale(5.0 / 1440, 0.001, -2.0), 0.6, 0.05);   // 5 minutes: x0.6
  EXPECT_NEAR(confidence_scale(1.0 / 24, 0.001, -2.0), 0.953, 0.001);  // 1 hour: x0.95
  EXPECT_EQ(confidence_scale(0.0, 0.001, -2.0), 0.0);

  VpaContainerModel m;
  for (int i = 0; i <= 1440; ++i) m.add_cpu_sample(i * 60, 1.0, 1.0);
  m.add_memory_sample(0, 1e9);
  const Recommendation r = vpa_recommend(m);
  ASSERT_NEAR(m.confidence(), 1.0, 1e-12);
  // All samples in one bucket: p50 = p90 = p95, so the bounds are the target scaled.
  EXPECT_NEAR(r.upper_bound.cpu_cores, 2 * r.target.cpu_cores, 0.0015);
  EXPECT_NEAR(r.lower_bound.cpu_cores, r.target.cpu_cores / (1.001 * 1.001), 0.0015);
}

TEST(VpaEstimator, EmptyHistoryGivesMinimumsAndUnboundedUpper) {
  VpaContainerModel m;
  const Recommendation r = vpa_recommend(m);
  EXPECT_DOUBLE_EQ(r.target.cpu_cores, 0.025);
  EXPECT_DOUBLE_EQ(r.target.memory_bytes, 250 * kMiB);
  EXPECT_DOUBLE_EQ(r.lower_bound.cpu_cores, 0.025);
}

TEST(VpaEstimator, MinimumIsSplitAcrossContainers) {
  VpaContainerModel m;
  VpaEstimatorConfig c;
  c.containers_in_pod = 2;
  const Recommendation r = vpa_recommend(m, c);
  EXPECT_DOUBLE_EQ(r.target.cpu_cores, 0.012);  // 12.5 m truncated to whole millicores
  EXPECT_DOUBLE_EQ(r.target.memory_bytes, 125 * kMiB);
}

TEST(VpaModel, OomBumpIsMaxOfPlus100MiBAndTimes1Point2) {
  struct Case {
    double request, peak, expected;
  };
  for (const Case& c :
       {Case{kGiB, 0.5 * kGiB, std::floor(1.2 * kGiB)}, Case{200 * kMiB, 0, 300 * kMiB},
        Case{kGiB, 2 * kGiB, 2.4 * kGiB}}) {  // the peak counts when higher
    VpaContainerModel m;
    if (c.peak > 0) m.add_memory_sample(0, c.peak);
    ASSERT_TRUE(m.record_oom(10, c.request));
    const auto& o = memory_histogram_options();
    EXPECT_EQ(m.memory_peaks().max_bucket(), o.find_bucket(c.expected)) << c.request;
  }
}

TEST(VpaEstimator, OomRaisesTargetHandComputed) {
  VpaContainerModel m;
  ASSERT_TRUE(m.record_oom(0, kGiB));  // needed = 1.2 GiB -> bucket 41
  const Recommendation r = vpa_recommend(m);
  // end of bucket 41 = 1352317511 bytes, + floor(15%) = 202847626.
  EXPECT_DOUBLE_EQ(r.target.memory_bytes, 1352317511.0 + 202847626.0);
}

TEST(VpaModel, OldOomIsDiscarded) {
  VpaContainerModel m;
  m.add_memory_sample(3 * kDay, 1e9);  // window ends at 3 d
  EXPECT_FALSE(m.record_oom(kDay, kGiB));
}

// With VPA's updater's quick-OOM cases (update_priority_calculator_test.go): a container whose
// last termination was an OOM kill less than --evict-after-oom-threshold (10 min) into its run
// (`oom_run`; < 0: no such kill) gets the target even inside the bounds and young, unless the
// target is what it runs with.
TEST(VpaUpdateRule, Table) {
  struct Case {
    const char* name;
    Resources request;
    Seconds age;
    bool apply;
    Seconds oom_run = -1;
  };
  Recommendation r;
  r.target = {1.0, 1e9};
  r.lower_bound = {0.8, 0.8e9};
  r.upper_bound = {2.0, 2e9};
  const Case cases[] = {
      {"below lower bound, young", {0.5, 1e9}, 60, true},
      {"above upper bound, young", {1.0, 3e9}, 60, true},
      {"within bounds, big change, young", {1.5, 1e9}, 11 * kHour, false},
      {"within bounds, big change, 12h old", {1.5, 1e9}, 12 * kHour, true},
      {"within bounds, 5% + 5% sums to 10%", {1.0 / 0.95, 1e9 / 0.95}, kDay, true},
      {"within bounds, 9% change", {1.09, 1e9}, kDay, false},
      {"quick OOM, within bounds, young", {1.0, 0.9e9}, 60, true, 5 * 60},
      {"quick OOM at once, within bounds, young", {1.0, 0.9e9}, 60, true, 0},
      {"quick OOM, within bounds, 1% change", {1.0, 0.99e9}, kDay, true, 5 * 60},
      {"OOM after 10 min exactly, young", {1.0, 0.9e9}, 60, false, 10 * 60},
      {"OOM after a long run, young", {1.0, 0.9e9}, 60, false, kHour},
      {"OOM after a long run, 12h old, big change", {1.0, 0.85e9}, 12 * kHour, true, kHour},
      {"quick OOM, resources unchanged", {1.0, 1e9}, 60, false, 5 * 60},
      {"quick OOM, resources unchanged, 12h old", {1.0, 1e9}, kDay, false, 5 * 60},
      {"OOM after a long run, below lower bound", {1.0, 0.5e9}, 60, true, kHour},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(vpa_should_apply({}, c.request, r, c.age, c.oom_run), c.apply) << c.name;
  }
  const VpaUpdateRule one_minute{.evict_after_oom = 60};
  EXPECT_TRUE(vpa_should_apply(one_minute, {1.0, 0.9e9}, r, 60, 59));
  EXPECT_FALSE(vpa_should_apply(one_minute, {1.0, 0.9e9}, r, 60, 60));
}

TEST(VpaModel, StateFitsInOneKiB) {
  VpaContainerModel m;
  for (int i = 0; i < 8 * 288; ++i) {
    m.add_cpu_sample(i * 300, 1.5 + std::sin(i * 0.01), 2.0);
    m.add_memory_sample(i * 300, 3e9 + 5e8 * std::sin(i * 0.003));
  }
  EXPECT_LE(m.state_bytes(), 1024u);
}

}  // namespace
}  // namespace tailor::recommender
