#include "cli/report.h"

#include <algorithm>
#include <cstdio>
#include <ostream>

namespace tailor::cli {
namespace {

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string quoted(const std::string& s) {
  std::string q = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') q += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      q += buf;
      continue;
    }
    q += c;
  }
  return q + '"';
}

}  // namespace

void print_table(std::ostream& out, const std::vector<recommender::ScoreRow>& rows) {
  char line[256];
  std::snprintf(line, sizeof line, "%-10s %10s %10s %14s %13s %16s %7s\n", "strategy", "cpu_slack",
                "mem_slack", "cpu_shortfall", "ooms_per_day", "resizes_per_day", "cost");
  out << line;
  for (const auto& r : rows) {
    std::snprintf(line, sizeof line, "%-10s %10.3f %10.3f %14.4f %13.4f %16.3f %7.3f\n",
                  r.strategy.c_str(), r.cpu_slack, r.mem_slack, r.cpu_shortfall, r.ooms_per_day,
                  r.resizes_per_day, r.cost);
    out << line;
  }
  if (!rows.empty()) out << "(" << rows.front().containers << " containers; update rules:";
  for (const auto& r : rows) out << "\n  " << r.strategy << ": " << r.update_rule;
  out << ")\n";
}

void print_per_container(std::ostream& out, const std::vector<recommender::ScoreRow>& rows) {
  char line[256];
  std::snprintf(line, sizeof line, "%-10s %-24s %6s %6s %7s %6s %6s %6s\n", "strategy", "container",
                "cpu_sl", "mem_sl", "cpu_sh", "oom/d", "rsz/d", "bytes");
  out << line;
  for (const auto& r : rows) {
    for (const auto& c : r.per_container) {
      if (c.scored_windows == 0) continue;
      auto ratio = [](double a, double b) { return b > 0 ? a / b : 0.0; };
      std::snprintf(line, sizeof line, "%-10s %-24s %6.3f %6.3f %7.4f %6.3f %6.3f %6zu\n",
                    r.strategy.c_str(), c.container.c_str(), ratio(c.cpu_slack, c.cpu_request),
                    ratio(c.mem_slack, c.mem_request), ratio(c.cpu_short, c.cpu_p95),
                    c.ooms / c.days, c.resizes / c.days, c.state_bytes);
      out << line;
    }
  }
}

void write_json(std::ostream& out, const std::vector<recommender::ScoreRow>& rows) {
  out << "{\"rows\":[";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    out << (i ? "," : "") << "{\"strategy\":" << quoted(r.strategy)
        << ",\"cpu_slack\":" << number(r.cpu_slack) << ",\"mem_slack\":" << number(r.mem_slack)
        << ",\"cpu_shortfall\":" << number(r.cpu_shortfall)
        << ",\"ooms_per_day\":" << number(r.ooms_per_day)
        << ",\"resizes_per_day\":" << number(r.resizes_per_day) << ",\"cost\":" << number(r.cost)
        << ",\"containers\":" << r.containers << ",\"update_rule\":" << quoted(r.update_rule)
        << "}";
  }
  out << "]}\n";
}

namespace {
std::string xml_text(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

struct Panel {
  double top, height;
  double max_value;
};

void polyline(std::ostream& out, const std::vector<recommender::TimelinePoint>& pts, double t0,
              double t1, const Panel& p, double recommender::TimelinePoint::*field,
              const char* color, double width) {
  out << "<polyline fill='none' stroke='" << color << "' stroke-width='" << width << "' points='";
  for (const auto& pt : pts) {
    double x = 60 + 900 * (pt.time - t0) / std::max(1.0, t1 - t0);
    double y = p.top + p.height * (1 - pt.*field / p.max_value);
    out << number(x) << ',' << number(y) << ' ';
  }
  out << "'/>\n";
}
}  // namespace

void write_svg(
    std::ostream& out, const std::string& title,
    const std::vector<std::pair<std::string, std::vector<recommender::TimelinePoint>>>& runs) {
  using TP = recommender::TimelinePoint;
  double t0 = 1e300, t1 = -1e300, max_cpu = 1e-9, max_mem = 1e-9;
  for (const auto& [name, pts] : runs) {
    for (const auto& p : pts) {
      t0 = std::min(t0, double(p.time));
      t1 = std::max(t1, double(p.time));
      max_cpu = std::max({max_cpu, p.cpu_usage, p.cpu_request});
      max_mem = std::max({max_mem, p.memory_usage, p.memory_request});
    }
  }
  const Panel cpu{40, 250, max_cpu * 1.05}, mem{340, 250, max_mem * 1.05};
  out << "<svg xmlns='http://www.w3.org/2000/svg' width='1000' height='640' "
         "font-family='sans-serif' font-size='12'>\n<rect width='1000' height='640' "
         "fill='white'/>\n<text x='60' y='20'>"
      << xml_text(title) << " (days " << number((t1 - t0) / 86400) << ")</text>\n"
      << "<text x='5' y='" << cpu.top + 10 << "'>cpu " << number(cpu.max_value) << "</text>\n"
      << "<text x='5' y='" << mem.top + 10 << "'>mem GiB " << number(mem.max_value / (1 << 30))
      << "</text>\n";
  const char* colors[] = {"#d62728", "#1f77b4", "#2ca02c", "#9467bd"};
  if (!runs.empty()) {
    polyline(out, runs[0].second, t0, t1, cpu, &TP::cpu_usage, "#999", 0.6);
    polyline(out, runs[0].second, t0, t1, mem, &TP::memory_usage, "#999", 0.6);
  }
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const char* c = colors[i % 4];
    polyline(out, runs[i].second, t0, t1, cpu, &TP::cpu_request, c, 1.2);
    polyline(out, runs[i].second, t0, t1, mem, &TP::memory_request, c, 1.2);
    out << "<text x='" << 700 + 90 * i << "' y='20' fill='" << c << "'>" << xml_text(runs[i].first)
        << " request</text>\n";
  }
  out << "<text x='600' y='20' fill='#999'>usage</text>\n</svg>\n";
}

}  // namespace tailor::cli
