#include "recommender/frontier_svg.h"

#include <algorithm>
#include <cmath>
#include <ostream>

#include "recommender/frontier.h"
#include "recommender/svg_text.h"

namespace tailor::recommender {
namespace {

using svg::number;
using svg::xml_text;

constexpr double kTop = 60, kHeight = 380, kWidth = 400;

struct Plane {
  double left;
  double x_max, y_min, y_max;
  const char* x_name;
  const char* y_name;
  double x(double v) const { return left + kWidth * v / x_max; }
  double y(double v) const { return kTop + kHeight * (1 - (v - y_min) / (y_max - y_min)); }
};

// Axes start at zero shortfall / OOMs; slack spans the points with a margin on both sides.
Plane fit(double left, const std::vector<CurvePoint>& pts, const char* xn, const char* yn) {
  double x_max = 0, y_min = 1e300, y_max = -1e300;
  for (const auto& p : pts) {
    x_max = std::max(x_max, p.x);
    y_min = std::min(y_min, p.y);
    y_max = std::max(y_max, p.y);
  }
  if (pts.empty()) y_min = 0, y_max = 1;
  const double pad = std::max(0.02, 0.08 * (y_max - y_min));
  // Room on the right for the last point's label.
  return {left, x_max > 0 ? x_max * 1.3 : 0.01, std::max(0.0, y_min - pad), y_max + pad, xn, yn};
}

// A round tick step (1, 2 or 5 times a power of ten) giving about four ticks over `range`.
double tick_step(double range) {
  const double raw = range / 4, magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  const double n = raw / magnitude;
  return magnitude * (n < 1.5 ? 1 : n < 3.5 ? 2 : n < 7.5 ? 5 : 10);
}

void axes(std::ostream& out, const Plane& p) {
  const double bottom = kTop + kHeight, right = p.left + kWidth;
  out << "<line x1='" << p.left << "' y1='" << bottom << "' x2='" << right << "' y2='" << bottom
      << "' stroke='black'/>\n<line x1='" << p.left << "' y1='" << kTop << "' x2='" << p.left
      << "' y2='" << bottom << "' stroke='black'/>\n";
  const double xs = tick_step(p.x_max);
  for (double v = 0; v <= p.x_max + 1e-12; v += xs) {
    out << "<text x='" << number(p.x(v)) << "' y='" << bottom + 16 << "' text-anchor='middle'>"
        << number(v) << "</text>\n";
  }
  const double ys = tick_step(p.y_max - p.y_min);
  for (double v = std::ceil(p.y_min / ys) * ys; v <= p.y_max + 1e-12; v += ys) {
    out << "<text x='" << p.left - 6 << "' y='" << number(p.y(v) + 4) << "' text-anchor='end'>"
        << number(v) << "</text>\n";
  }
  out << "<text x='" << p.left + kWidth / 2 << "' y='" << bottom + 34 << "' text-anchor='middle'>"
      << p.x_name << "</text>\n<text x='" << p.left + 4 << "' y='" << kTop - 8 << "'>" << p.y_name
      << "</text>\n";
}

const char* const kColors[] = {"#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"};

void plane(std::ostream& out, const std::vector<ScoreRow>& rows, Resource r, double left,
           const char* xn, const char* yn) {
  const std::vector<CurvePoint> vpa = vpa_curve_points(rows, r);
  std::vector<CurvePoint> others;
  for (const ScoreRow& row : rows) {
    if (row.strategy != "as-run" && !is_vpa_curve_row(row.strategy)) {
      others.push_back(curve_point(row, r));
    }
  }
  std::vector<CurvePoint> all = vpa;
  all.insert(all.end(), others.begin(), others.end());
  const Plane p = fit(left, all, xn, yn);
  axes(out, p);
  const std::vector<CurvePoint> env = lower_envelope(vpa);
  out << "<path class='vpa-curve' fill='none' stroke='#1f77b4' stroke-width='1.5' d='";
  for (std::size_t i = 0; i < env.size(); ++i) {
    out << (i ? "L" : "M") << number(p.x(env[i].x)) << ' ' << number(p.y(env[i].y)) << ' ';
  }
  out << "'/>\n";
  for (const CurvePoint& c : vpa) {
    const bool is_default = c.label == "vpa";
    out << "<circle class='vpa-point' cx='" << number(p.x(c.x)) << "' cy='" << number(p.y(c.y))
        << "' r='" << (is_default ? 5 : 3) << "' fill='#1f77b4'><title>" << xml_text(c.label)
        << "</title></circle>\n<text x='" << number(p.x(c.x) + 5) << "' y='" << number(p.y(c.y) - 4)
        << "' font-size='9' fill='#1f77b4'>" << xml_text(is_default ? "vpa" : c.label.substr(4))
        << "</text>\n";
  }
  for (std::size_t i = 0; i < others.size(); ++i) {
    const CurvePoint& c = others[i];
    const char* color = kColors[i % 5];
    const double x = p.x(c.x), y = p.y(c.y);
    out << "<path class='strategy-point' d='M" << number(x - 5) << ' ' << number(y) << " L"
        << number(x) << ' ' << number(y - 5) << " L" << number(x + 5) << ' ' << number(y) << " L"
        << number(x) << ' ' << number(y + 5) << " Z' fill='" << color << "'><title>"
        << xml_text(c.label) << "</title></path>\n<text x='" << number(x + 7) << "' y='"
        << number(y + 12) << "' fill='" << color << "'>" << xml_text(c.label) << "</text>\n";
  }
}

}  // namespace

void write_tradeoff_svg(std::ostream& out, const std::string& title,
                        const std::vector<ScoreRow>& rows) {
  out << "<svg xmlns='http://www.w3.org/2000/svg' width='1000' height='500' "
         "font-family='sans-serif' font-size='12'>\n<rect width='1000' height='500' "
         "fill='white'/>\n<text x='70' y='20'>"
      << xml_text(title)
      << "</text>\n<text x='70' y='36' fill='#1f77b4' font-size='10'>blue: VPA's points "
         "(one knob moved; big dot = VPA's defaults), line = the best of them; lower is better"
         "</text>\n";
  plane(out, rows, Resource::cpu, 70, "cpu_shortfall", "cpu_slack");
  plane(out, rows, Resource::memory, 560, "ooms_per_day", "mem_slack");
  out << "</svg>\n";
}

}  // namespace tailor::recommender
