#include "recommender/frontier.h"

#include <algorithm>
#include <cmath>

#include "recommender/vpa_knobs.h"

namespace tailor::recommender {

CurvePoint curve_point(const ScoreRow& row, Resource resource) {
  if (resource == Resource::cpu) return {row.cpu_shortfall, row.cpu_slack, row.strategy};
  return {row.ooms_per_day, row.mem_slack, row.strategy};
}

std::vector<CurvePoint> vpa_curve_points(const std::vector<ScoreRow>& rows, Resource resource) {
  std::vector<CurvePoint> out;
  for (const ScoreRow& row : rows) {
    if (!is_vpa_spec(row.strategy)) continue;
    const VpaKnobs k = parse_vpa_knobs(row.strategy);
    if (resource == Resource::cpu ? k.cpu_only() : k.memory_only()) {
      out.push_back(curve_point(row, resource));
    }
  }
  return out;
}

bool is_vpa_curve_row(const std::string& strategy) {
  if (!is_vpa_spec(strategy)) return false;
  const VpaKnobs k = parse_vpa_knobs(strategy);
  return k.cpu_only() || k.memory_only();
}

std::vector<CurvePoint> lower_envelope(std::vector<CurvePoint> points) {
  std::stable_sort(points.begin(), points.end(), [](const CurvePoint& a, const CurvePoint& b) {
    return a.x < b.x || (a.x == b.x && a.y < b.y);
  });
  std::vector<CurvePoint> out;
  for (const CurvePoint& p : points) {
    if (out.empty() || p.y < out.back().y) out.push_back(p);
  }
  return out;
}

CurveVerdict compare_to_curve(const std::vector<CurvePoint>& env, double x, double y) {
  // Figures printed to 3-4 digits: closer than this is the same point.
  constexpr double kTie = 1e-9;
  CurveVerdict v;
  if (env.empty()) return v;
  auto side_of = [&](double curve_y) {
    if (std::abs(y - curve_y) <= kTie) return CurveSide::on;
    return y < curve_y ? CurveSide::below : CurveSide::above;
  };
  if (x < env.front().x) {
    v.side = y <= env.front().y ? CurveSide::below : CurveSide::left;
    return v;
  }
  if (x > env.back().x) {
    v.side = y >= env.back().y ? CurveSide::above : CurveSide::right;
    return v;
  }
  for (std::size_t i = 0; i < env.size(); ++i) {
    if (x == env[i].x) {
      v.curve_y = env[i].y;
      break;
    }
    if (i + 1 < env.size() && x < env[i + 1].x) {
      const double f = (x - env[i].x) / (env[i + 1].x - env[i].x);
      v.curve_y = env[i].y + f * (env[i + 1].y - env[i].y);
      break;
    }
  }
  v.side = side_of(*v.curve_y);
  return v;
}

const char* side_name(CurveSide side) {
  switch (side) {
    case CurveSide::below:
      return "below VPA's curve";
    case CurveSide::on:
      return "on VPA's curve";
    case CurveSide::above:
      return "above VPA's curve";
    case CurveSide::left:
      return "left of VPA's curve (less shortfall than any VPA point, more slack: no verdict)";
    case CurveSide::right:
      return "right of VPA's curve (more shortfall than any VPA point, less slack: no verdict)";
  }
  return "";
}

}  // namespace tailor::recommender
