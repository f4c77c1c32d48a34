#pragma once

#include <optional>
#include <string>
#include <vector>

#include "recommender/replay.h"

namespace tailor::recommender {

// One row on a trade-off plane: CPU (x = cpu_shortfall, y = cpu_slack) or memory
// (x = ooms_per_day, y = mem_slack), docs/scoring.md ("Trade-off curves").
struct CurvePoint {
  double x = 0, y = 0;
  std::string label;
};

enum class Resource { cpu, memory };

CurvePoint curve_point(const ScoreRow& row, Resource resource);

// VPA's points for one resource: the `vpa` row and every vpa variant that moves only that
// resource's knobs (a variant moving both belongs to neither curve), in row order.
std::vector<CurvePoint> vpa_curve_points(const std::vector<ScoreRow>& rows, Resource resource);

// A vpa row that moves one resource's knobs or none: a point of VPA's curves, not a strategy
// to compare with them (a variant moving both resources is compared like any strategy).
bool is_vpa_curve_row(const std::string& strategy);

// The best VPA reaches: the points no other point beats on both axes, by ascending x. Between
// them the curve is linear; a dominated point (a knob setting worse on both figures) is not
// what VPA "can do" and would make the curve easier to get under.
std::vector<CurvePoint> lower_envelope(std::vector<CurvePoint> points);

// Where a point lies against the envelope: below (less slack than VPA at the same shortfall or
// OOM rate, or beating one of VPA's points on both axes), above (more slack, or beaten by one),
// on it, or outside the curve's x-range without a verdict (left of its least-shortfall point
// with more slack than that point; right of its most-shortfall point with less slack).
enum class CurveSide { below, on, above, left, right };
struct CurveVerdict {
  CurveSide side = CurveSide::left;
  std::optional<double> curve_y;  // VPA's slack at the point's x, inside the curve's x-range
};
CurveVerdict compare_to_curve(const std::vector<CurvePoint>& envelope, double x, double y);
const char* side_name(CurveSide side);

}  // namespace tailor::recommender
