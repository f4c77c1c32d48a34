#include "recommender/timeline_svg.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ostream>

#include "recommender/svg_text.h"

namespace tailor::recommender {
namespace {

using svg::number;
using svg::xml_text;

constexpr double kLeft = 70, kWidth = 880;

struct TimeFrame {
  double t0, t1;
  double x(double t) const { return kLeft + kWidth * (t - t0) / std::max(1.0, t1 - t0); }
};

// One resource: where it sits on the page, and the unit its axis is labelled in.
struct Panel {
  double top, height;
  double max_value;  // in base units (cores, bytes)
  double unit;       // base units per labelled unit
  const char* unit_name;
  double TimelinePoint::*usage;
  double TimelinePoint::*request;
  double bottom() const { return top + height; }
  double y(double v) const { return top + height * (1 - v / max_value); }
};

// A path with one "M" per run of windows without a gap; each window is drawn over its span,
// so a request shows exactly where it applied. A request that is not positive (no pod) is not
// drawn.
void series_path(std::ostream& out, const std::vector<TimelinePoint>& pts, const TimeFrame& f,
                 const Panel& p, double TimelinePoint::*field, const TimelineShape& shape,
                 const std::string& cls, const char* color, double width) {
  out << "<path class='" << cls << "' fill='none' stroke='" << color << "' stroke-width='" << width
      << "' d='";
  const bool request = field == p.request;
  const TimelinePoint* previous = nullptr;
  for (const auto& pt : pts) {
    if (request && !(pt.*field > 0)) {
      previous = nullptr;
      continue;
    }
    const bool joined = previous && pt.time - (previous->time + shape.window) <= shape.max_gap;
    const double y = p.y(pt.*field);
    out << (joined ? "L" : "M") << number(f.x(double(pt.time))) << ' ' << number(y) << ' ' << 'L'
        << number(f.x(double(pt.time + shape.window))) << ' ' << number(y) << ' ';
    previous = &pt;
  }
  out << "'/>\n";
}

// Day ticks: every day for short traces, a coarser round step for long ones (at most ~12 ticks).
int day_step(double days) {
  for (int step : {1, 2, 5, 10, 20, 50}) {
    if (days / step <= 12) return step;
  }
  return 100;
}

void axes(std::ostream& out, const TimeFrame& f, const Panel& p) {
  const double left = kLeft, right = kLeft + kWidth;
  out << "<line class='x-axis' x1='" << left << "' y1='" << p.bottom() << "' x2='" << right
      << "' y2='" << p.bottom() << "' stroke='black'/>\n<line class='y-axis' x1='" << left
      << "' y1='" << p.top << "' x2='" << left << "' y2='" << p.bottom() << "' stroke='black'/>\n";
  const double days = (f.t1 - f.t0) / kDay;
  const int step = day_step(days);
  for (int d = 0; d <= days; d += step) {
    const double x = f.x(f.t0 + double(d) * kDay);
    out << "<line x1='" << number(x) << "' y1='" << p.bottom() << "' x2='" << number(x) << "' y2='"
        << p.bottom() + 4 << "' stroke='black'/><text x='" << number(x) << "' y='"
        << p.bottom() + 16 << "' text-anchor='middle'>d" << d << "</text>\n";
  }
  for (double frac : {0.0, 0.5, 1.0}) {
    const double y = p.y(frac * p.max_value);
    out << "<line x1='" << left - 4 << "' y1='" << number(y) << "' x2='" << left << "' y2='"
        << number(y) << "' stroke='black'/><text x='" << left - 6 << "' y='" << number(y + 4)
        << "' text-anchor='end'>" << number(frac * p.max_value / p.unit) << "</text>\n";
  }
  out << "<text x='" << left + 4 << "' y='" << p.top - 4 << "'>" << p.unit_name << "</text>\n";
}

const char* const kColors[] = {"#d62728", "#1f77b4", "#2ca02c", "#9467bd"};

void panel(std::ostream& out, const std::vector<NamedTimeline>& runs, const TimeFrame& f,
           const Panel& p, const TimelineShape& shape) {
  axes(out, f, p);
  if (!runs.empty()) series_path(out, runs[0].second, f, p, p.usage, shape, "usage", "#999", 0.6);
  for (std::size_t i = 0; i < runs.size(); ++i) {
    series_path(out, runs[i].second, f, p, p.request, shape, "request " + runs[i].first,
                kColors[i % 4], 1.2);
  }
}

}  // namespace

void write_timeline_svg(std::ostream& out, const std::string& title,
                        const std::vector<NamedTimeline>& runs, const TimelineShape& shape) {
  TimeFrame f{1e300, -1e300};
  double max_cpu = 1e-9, max_mem = 1e-9;
  for (const auto& [name, pts] : runs) {
    for (const auto& p : pts) {
      f.t0 = std::min(f.t0, double(p.time));
      f.t1 = std::max(f.t1, double(p.time + shape.window));
      max_cpu = std::max({max_cpu, p.cpu_usage, p.cpu_request});
      max_mem = std::max({max_mem, p.memory_usage, p.memory_request});
    }
  }
  if (f.t0 > f.t1) f = {0, double(kDay)};
  const Panel cpu{
      50, 240, max_cpu * 1.05, 1, "cores", &TimelinePoint::cpu_usage, &TimelinePoint::cpu_request};
  const Panel mem{350,
                  240,
                  max_mem * 1.05,
                  double(1L << 30),
                  "GiB",
                  &TimelinePoint::memory_usage,
                  &TimelinePoint::memory_request};
  out << "<svg xmlns='http://www.w3.org/2000/svg' width='1000' height='640' "
         "font-family='sans-serif' font-size='12'>\n<rect width='1000' height='640' "
         "fill='white'/>\n<text x='"
      << kLeft << "' y='20'>" << xml_text(title) << " (" << number((f.t1 - f.t0) / kDay)
      << " days)</text>\n<text x='600' y='20' fill='#999'>usage</text>\n";
  for (std::size_t i = 0; i < runs.size(); ++i) {
    out << "<text x='" << 700 + 90 * i << "' y='20' fill='" << kColors[i % 4] << "'>"
        << xml_text(runs[i].first) << " request</text>\n";
  }
  panel(out, runs, f, cpu, shape);
  panel(out, runs, f, mem, shape);
  out << "</svg>\n";
}

}  // namespace tailor::recommender
