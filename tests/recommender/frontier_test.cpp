#include "recommender/frontier.h"

#include <gtest/gtest.h>

#include <sstream>

#include "recommender/frontier_svg.h"

namespace tailor::recommender {
namespace {

ScoreRow row(const std::string& name, double cpu_short, double cpu_slack, double ooms,
             double mem_slack) {
  ScoreRow r;
  r.strategy = name;
  r.cpu_shortfall = cpu_short;
  r.cpu_slack = cpu_slack;
  r.ooms_per_day = ooms;
  r.mem_slack = mem_slack;
  return r;
}

std::vector<ScoreRow> rows() {
  return {row("as-run", 0.01, 0.8, 1.0, 0.4),
          row("vpa", 0.05, 0.50, 0.02, 0.25),
          row("vpa:cpu-percentile=0.8", 0.09, 0.40, 0.02, 0.25),
          row("vpa:cpu-margin=0.3", 0.03, 0.60, 0.02, 0.25),
          row("vpa:cpu-margin=0.05", 0.08, 0.52, 0.02, 0.25),  // beaten by p0.8: off the curve
          row("vpa:memory-margin=0", 0.05, 0.50, 0.08, 0.15),
          row("vpa:cpu-margin=0,memory-margin=0", 0.1, 0.3, 0.1, 0.1),  // neither curve
          row("default", 0.06, 0.45, 0.05, 0.20)};
}

TEST(Frontier, CurvePointsAreVpaRowsMovingOneResource) {
  EXPECT_TRUE(is_vpa_curve_row("vpa"));
  EXPECT_TRUE(is_vpa_curve_row("vpa:memory-margin=0"));
  EXPECT_FALSE(is_vpa_curve_row("vpa:cpu-margin=0,memory-margin=0"));
  EXPECT_FALSE(is_vpa_curve_row("default"));
  const auto cpu = vpa_curve_points(rows(), Resource::cpu);
  ASSERT_EQ(cpu.size(), 4u);
  EXPECT_EQ(cpu[0].label, "vpa");
  EXPECT_EQ(cpu[1].x, 0.09);
  const auto mem = vpa_curve_points(rows(), Resource::memory);
  ASSERT_EQ(mem.size(), 2u);
  EXPECT_EQ(mem[1].label, "vpa:memory-margin=0");
  EXPECT_EQ(mem[1].x, 0.08);
  EXPECT_EQ(mem[1].y, 0.15);
}

TEST(Frontier, EnvelopeDropsPointsBeatenOnBothAxes) {
  const auto env = lower_envelope(vpa_curve_points(rows(), Resource::cpu));
  ASSERT_EQ(env.size(), 3u);
  EXPECT_EQ(env[0].label, "vpa:cpu-margin=0.3");
  EXPECT_EQ(env[1].label, "vpa");
  EXPECT_EQ(env[2].label, "vpa:cpu-percentile=0.8");
}

TEST(Frontier, ComparesByLinearInterpolation) {
  const auto env = lower_envelope(vpa_curve_points(rows(), Resource::cpu));
  // Between vpa (0.05, 0.50) and p0.8 (0.09, 0.40): at 0.06 the curve is at 0.475.
  CurveVerdict v = compare_to_curve(env, 0.06, 0.45);
  EXPECT_EQ(v.side, CurveSide::below);
  ASSERT_TRUE(v.curve_y);
  EXPECT_NEAR(*v.curve_y, 0.475, 1e-12);
  EXPECT_EQ(compare_to_curve(env, 0.06, 0.48).side, CurveSide::above);
  EXPECT_EQ(compare_to_curve(env, 0.05, 0.50).side, CurveSide::on);
  // Outside the curve's range: a verdict only when one of VPA's points is beaten or beats it.
  EXPECT_EQ(compare_to_curve(env, 0.02, 0.55).side, CurveSide::below);
  EXPECT_EQ(compare_to_curve(env, 0.02, 0.65).side, CurveSide::left);
  EXPECT_FALSE(compare_to_curve(env, 0.02, 0.65).curve_y);
  EXPECT_EQ(compare_to_curve(env, 0.12, 0.45).side, CurveSide::above);
  EXPECT_EQ(compare_to_curve(env, 0.12, 0.35).side, CurveSide::right);
  EXPECT_EQ(compare_to_curve({}, 0.1, 0.1).side, CurveSide::left);
}

TEST(Frontier, SvgDrawsEveryVpaPointAndEveryOtherRow) {
  std::ostringstream out;
  write_tradeoff_svg(out, "t <1>", rows());
  const std::string svg = out.str();
  auto count = [&](const std::string& what) {
    std::size_t n = 0;
    for (auto at = svg.find(what); at != std::string::npos; at = svg.find(what, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("t &lt;1&gt;"), std::string::npos);
  EXPECT_EQ(count("class='vpa-curve'"), 2u);
  EXPECT_EQ(count("class='vpa-point'"), 4u + 2u);
  // On each plane the both-knob row and default; as-run and the curve rows of the other
  // resource on neither.
  EXPECT_EQ(count("class='strategy-point'"), 2u + 2u);
  EXPECT_EQ(svg.find("as-run"), std::string::npos);
}

}  // namespace
}  // namespace tailor::recommender
