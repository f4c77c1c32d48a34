#include "kube/observe/metrics.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <stdexcept>

namespace tailor::kube::metrics {
namespace {

using ::testing::HasSubstr;

TEST(MetricsTest, FqNameJoinsNonEmptyParts) {
  EXPECT_EQ(fq_name("tailor", "actuator", "resizes_total"), "tailor_actuator_resizes_total");
  EXPECT_EQ(fq_name("tailor", "", "up"), "tailor_up");
  EXPECT_EQ(fq_name("", "", "up"), "up");
  EXPECT_EQ(fq_name("tailor", "x", ""), "");
}

TEST(MetricsTest, SerializesCounterGaugeHistogramInTextFormat) {
  Registry r;
  auto resizes = r.counter({.subsystem = "actuator",
                            .name = "resizes_total",
                            .help = "In-place resizes by outcome.",
                            .stability = Stability::Beta});
  resizes.with({{"outcome", "Deferred"}}).Increment(2);
  r.gauge({.name = "managed_pods", .help = "Pods under a policy."}).with().Set(7);
  auto latency = r.histogram({.subsystem = "actuator",
                              .name = "resize_duration_seconds",
                              .help = "Time to an actuated resize."},
                             {0.5, 1});
  latency.with().Observe(0.7);
  std::string text = r.serialize();
  EXPECT_THAT(text, HasSubstr("# HELP tailor_actuator_resizes_total [BETA] In-place resizes by "
                              "outcome.\n# TYPE tailor_actuator_resizes_total counter\n"
                              "tailor_actuator_resizes_total{outcome=\"Deferred\"} 2"));
  EXPECT_THAT(text, HasSubstr("# HELP tailor_managed_pods [ALPHA] Pods under a policy.\n"
                              "# TYPE tailor_managed_pods gauge\ntailor_managed_pods 7"));
  EXPECT_THAT(text, HasSubstr("# TYPE tailor_actuator_resize_duration_seconds histogram\n"));
  EXPECT_THAT(text, HasSubstr("tailor_actuator_resize_duration_seconds_bucket{le=\"0.5\"} 0\n"));
  EXPECT_THAT(text, HasSubstr("tailor_actuator_resize_duration_seconds_bucket{le=\"1\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("tailor_actuator_resize_duration_seconds_bucket{le=\"+Inf\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("tailor_actuator_resize_duration_seconds_count 1\n"));
}

TEST(MetricsTest, LabelValuesAreEscaped) {
  Registry r;
  r.counter({.name = "events_total", .help = "h"}).with({{"reason", "a\"b\\c\nd"}}).Increment();
  EXPECT_THAT(r.serialize(), HasSubstr("tailor_events_total{reason=\"a\\\"b\\\\c\\nd\"} 1"));
}

TEST(MetricsTest, SameNameAndTypeReturnsTheSameFamily) {
  Registry r;
  r.counter({.name = "x_total", .help = "h"}).with().Increment();
  r.counter({.name = "x_total", .help = "h"}).with().Increment();
  EXPECT_THAT(r.serialize(), HasSubstr("tailor_x_total 2"));
}

struct BadOpts {
  const char* why;
  Opts opts;
  bool counter;
  const char* message;
};
void PrintTo(const BadOpts& o, std::ostream* os) { *os << o.why; }

class BadMetricTest : public ::testing::TestWithParam<BadOpts> {};

TEST_P(BadMetricTest, IsRejectedWithTheName) {
  Registry r;
  try {
    if (GetParam().counter) {
      r.counter(GetParam().opts);
    } else {
      r.gauge(GetParam().opts);
    }
    FAIL() << GetParam().why;
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), GetParam().message);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Conventions, BadMetricTest,
    ::testing::Values(BadOpts{"counter without _total",
                              {.name = "resizes", .help = "h"},
                              true,
                              "metric \"tailor_resizes\": counter names must end in _total"},
                      BadOpts{"gauge with _total",
                              {.name = "pods_total", .help = "h"},
                              false,
                              "metric \"tailor_pods_total\": only counters may end in _total"},
                      BadOpts{"bad character",
                              {.name = "pod-count", .help = "h"},
                              false,
                              "metric \"tailor_pod-count\": invalid name"},
                      BadOpts{"leading digit",
                              {.namespace_ = "", .name = "9lives", .help = "h"},
                              false,
                              "metric \"9lives\": invalid name"},
                      BadOpts{"no help",
                              {.name = "pods"},
                              false,
                              "metric \"tailor_pods\": help text is required"},
                      BadOpts{"reserved label",
                              {.name = "pods", .help = "h", .const_labels = {{"__name", "x"}}},
                              false,
                              "metric \"tailor_pods\": invalid label name \"__name\""}));

TEST(MetricsTest, SameNameOtherTypeIsAnError) {
  Registry r;
  r.gauge({.name = "pods", .help = "h"});
  EXPECT_THROW(r.histogram({.name = "pods", .help = "h"}), std::invalid_argument);
}

TEST(MetricsTest, HistogramBucketsMustIncrease) {
  Registry r;
  EXPECT_THROW(r.histogram({.name = "a_seconds", .help = "h"}, {1, 1}), std::invalid_argument);
  EXPECT_THROW(r.histogram({.name = "b_seconds", .help = "h"}, {}), std::invalid_argument);
}

TEST(MetricsTest, BucketHelpers) {
  EXPECT_EQ(default_buckets().size(), 11u);
  EXPECT_EQ(exponential_buckets(0.001, 2, 4), (std::vector<double>{0.001, 0.002, 0.004, 0.008}));
  EXPECT_EQ(linear_buckets(1, 0.5, 3), (std::vector<double>{1, 1.5, 2}));
  EXPECT_THROW(exponential_buckets(0, 2, 3), std::invalid_argument);
  EXPECT_THROW(exponential_buckets(1, 1, 3), std::invalid_argument);
  EXPECT_THROW(linear_buckets(1, 1, 0), std::invalid_argument);
}

TEST(MetricsTest, ProcessRegistryHasProcessMetrics) {
  EXPECT_THAT(registry().serialize(), HasSubstr("# TYPE process_start_time_seconds gauge\n"));
  EXPECT_EQ(&registry(), &registry());
}

TEST(MetricsTest, TextCollectorsWriteAfterTheFamilies) {
  Registry r;
  r.counter({.name = "a_total", .help = "A."}).with().Increment();
  r.add_text_collector([](std::string& out) { out += "# HELP tailor_b [ALPHA] B.\n"; });
  r.add_text_collector([](std::string& out) { out += "tailor_b 1\n"; });
  const std::string text = r.serialize();
  const auto b = text.find("# HELP tailor_b");
  ASSERT_NE(b, std::string::npos) << text;
  EXPECT_LT(text.find("tailor_a_total 1"), b);
  EXPECT_EQ(text.substr(b), "# HELP tailor_b [ALPHA] B.\ntailor_b 1\n");
}

}  // namespace
}  // namespace tailor::kube::metrics
