#include "recommender/timeline_svg.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <sstream>
#include <string>

namespace tailor::recommender {
namespace {

// The d attribute of the first path whose class is exactly `cls` (CPU panel comes first).
std::string path_data(const std::string& svg, const std::string& cls) {
  const std::string key = "class='" + cls + "'";
  const auto at = svg.find(key);
  EXPECT_NE(at, std::string::npos) << cls;
  if (at == std::string::npos) return {};
  const auto d = svg.find("d='", at) + 3;
  return svg.substr(d, svg.find('\'', d) - d);
}

double first_x_axis_y(const std::string& svg) {
  std::smatch m;
  EXPECT_TRUE(std::regex_search(svg, m, std::regex("class='x-axis'[^>]* y1='([0-9.]+)'")));
  return std::stod(m[1]);
}

// Two hours running, a three-hour gap (a new pod), two more hours; the first window of the
// resumed pod carries a zero request, as a placeholder would.
std::vector<TimelinePoint> trace_with_gap() {
  std::vector<TimelinePoint> pts;
  for (Seconds t = 0; t < 2 * kHour; t += 300) pts.push_back({t, 0.5, 1e9, 1.0, 2e9});
  for (Seconds t = 5 * kHour; t < 7 * kHour; t += 300) {
    pts.push_back({t, 0.5, 1e9, t == 5 * kHour ? 0.0 : 1.0, 2e9});
  }
  return pts;
}

std::string render(const std::vector<TimelinePoint>& pts) {
  std::ostringstream out;
  write_timeline_svg(out, "c", {{"vpa", pts}}, {300, kHour});
  return out.str();
}

TEST(TimelineSvg, UsageBreaksAtAGapAndNowhereElse) {
  const std::string d = path_data(render(trace_with_gap()), "usage");
  EXPECT_EQ(std::count(d.begin(), d.end(), 'M'), 2) << d;
}

TEST(TimelineSvg, ShortAbsenceDoesNotBreakTheLine) {
  auto pts = trace_with_gap();
  for (auto& p : pts) {
    if (p.time >= 5 * kHour) p.time -= 3 * kHour - 1800;  // 30 min absence: same pod
  }
  const std::string d = path_data(render(pts), "usage");
  EXPECT_EQ(std::count(d.begin(), d.end(), 'M'), 1) << d;
}

TEST(TimelineSvg, NoRequestIsDrawnAtZero) {
  const std::string svg = render(trace_with_gap());
  const std::string d = path_data(svg, "request vpa");
  const double baseline = first_x_axis_y(svg);
  std::istringstream in(d);
  std::string cmd;
  double x, y;
  int points = 0;
  while (in >> cmd >> y) {
    x = std::stod(cmd.substr(1));
    EXPECT_LT(y, baseline - 1) << "request at zero near x=" << x;
    ++points;
  }
  EXPECT_EQ(points, 2 * (int(trace_with_gap().size()) - 1));
  EXPECT_EQ(std::count(d.begin(), d.end(), 'M'), 2) << d;
}

TEST(TimelineSvg, LabelsDaysAndUnits) {
  std::vector<TimelinePoint> pts;
  for (Seconds t = 0; t <= 12 * kDay; t += kHour) pts.push_back({t, 2.0, 4.0 * (1L << 30), 2, 0});
  const std::string svg = render(pts);
  for (const char* label : {">d0<", ">d2<", ">d10<", ">cores<", ">GiB<", ">0<", ">4.2<"}) {
    EXPECT_NE(svg.find(label), std::string::npos) << label;
  }
  EXPECT_EQ(svg.find(">d1<"), std::string::npos);
}

}  // namespace
}  // namespace tailor::recommender
