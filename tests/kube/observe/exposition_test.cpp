// The text exposition format written straight (kube/observe/exposition.h), as Prometheus reads it.
#include "kube/observe/exposition.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace tailor::kube::metrics {
namespace {

TEST(ExpositionTest, FamilyHeaderWithStabilityAndEscapedHelp) {
  std::string out;
  append_family(out, "tailor_x_total", "Kills \\ and\nlines \"quoted\".", SeriesType::Counter);
  EXPECT_EQ(out,
            "# HELP tailor_x_total [ALPHA] Kills \\\\ and\\nlines \"quoted\".\n"
            "# TYPE tailor_x_total counter\n");
  out.clear();
  append_family(out, "tailor_y", "Y.", SeriesType::Gauge);
  EXPECT_EQ(out, "# HELP tailor_y [ALPHA] Y.\n# TYPE tailor_y gauge\n");
}

TEST(ExpositionTest, LabelsSharedAndExtended) {
  std::string labels;
  append_label(labels, "namespace", "shop");
  append_label(labels, "name", "a\"b\\c\nd");
  EXPECT_EQ(labels, R"(namespace="shop",name="a\"b\\c\nd")");
  std::string out;
  append_sample(out, "m", labels, R"(resource="cpu")", 0.25);
  append_sample(out, "m", labels, {}, 3);
  append_sample(out, "m", {}, R"(resource="cpu")", 1e21);
  append_sample(out, "m", {}, {}, 123456789.125);
  EXPECT_EQ(out,
            "m{namespace=\"shop\",name=\"a\\\"b\\\\c\\nd\",resource=\"cpu\"} 0.25\n"
            "m{namespace=\"shop\",name=\"a\\\"b\\\\c\\nd\"} 3\n"
            "m{resource=\"cpu\"} 1e+21\n"
            "m 123456789.125\n");
}

TEST(ExpositionTest, ValuesReadBackExactlyAndSpecialValuesAsPrometheusSpellsThem) {
  std::string out;
  append_sample(out, "m", {}, {}, 0.1 + 0.2);
  EXPECT_EQ(std::stod(out.substr(2)), 0.1 + 0.2);
  out.clear();
  append_sample(out, "m", {}, {}, std::numeric_limits<double>::quiet_NaN());
  append_sample(out, "m", {}, {}, std::numeric_limits<double>::infinity());
  append_sample(out, "m", {}, {}, -std::numeric_limits<double>::infinity());
  EXPECT_EQ(out, "m NaN\nm +Inf\nm -Inf\n");
}

}  // namespace
}  // namespace tailor::kube::metrics
