// tests/support/vpa_oom_target.h computes VPA's target after an OOM kill through Tailor's own vpa
// strategy, so the tests that use it (tests/e2e/oom_test.cpp, tests/controller/integration/
// oom_cluster_test.cpp) would agree with Tailor even if Tailor's estimator were wrong. This holds
// it to a number worked out by hand from upstream's code, for the 256Mi case the e2e test uses.
#include "tests/support/vpa_oom_target.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace tailor::controller::testing {
namespace {

// VPA (kubernetes/autoscaler vertical-pod-autoscaler/pkg/recommender), default flags, one
// container killed at a 256Mi request (= limit):
//  1. OOM bump, model/container.go RecordOOM with model/aggregations_config.go's
//     DefaultOOMBumpUpRatio = 1.2 and DefaultOOMMinBumpUp = 100 * 1024 * 1024:
//       max(256Mi + 100Mi, 256Mi * 1.2) = max(356Mi, 307.2Mi) = 356Mi = 373,293,056 bytes,
//     the container's only memory peak.
//  2. Memory histogram, model/aggregations_config.go memoryHistogramOptions:
//     NewExponentialHistogramOptions(1e12, 1e7, 1.05, ...): bucket n starts at
//     1e7 * (1.05^n - 1) / 0.05 (util/histogram_options.go). FindBucket(373,293,056) =
//     floor(log_1.05(373,293,056 * 0.05 / 1e7 + 1)) = floor(log_1.05(2.866465)) =
//     floor(21.57) = 21; bucket 21 = [357,192,518.08, 385,052,143.98).
//  3. Target percentile, logic/recommender.go --target-memory-percentile = 0.9: the only
//     bucket holds all the weight, and util/histogram.go Percentile returns the END of the
//     bucket: start(22) = 1e7 * (1.05^22 - 1) / 0.05 = 385,052,143.98, which
//     model.MemoryAmountFromBytes truncates to 385,052,143.
//  4. Safety margin, --recommendation-margin-fraction = 0.15 (logic/estimator.go
//     WithMemoryMargin, ScaleResource truncating): int64(385,052,143 * 1.15) =
//     int64(442,809,964.45) = 442,809,964.
//  5. Pod minimum, --pod-recommendation-min-memory-mb = 250: 250Mi = 262,144,000 < 442,809,964,
//     no effect. model.QuantityFromMemoryAmount publishes the bytes as they are (no rounding
//     with the default --round-memory-bytes=1 and --humanize-memory=false).
constexpr std::int64_t kVpaTargetAfterOomAt256Mi = 442'809'964;

TEST(VpaOomTarget, EqualsUpstreamsArithmeticWorkedByHandAt256Mi) {
  constexpr double kMiB = 1024.0 * 1024;
  EXPECT_EQ(vpa_oom_target(256 * kMiB).value(), kVpaTargetAfterOomAt256Mi);
}

}  // namespace
}  // namespace tailor::controller::testing
