#include "cli/report.h"

#include <algorithm>
#include <cstdio>
#include <ostream>

#include "cli/json_text.h"
#include "recommender/vpa_knobs.h"

namespace tailor::cli {

void print_table(std::ostream& out, const std::vector<recommender::ScoreRow>& rows) {
  // VPA variants are named as written ("vpa:memory-percentile=0.95"): the column fits them.
  int width = 10;
  for (const auto& r : rows) width = std::max(width, static_cast<int>(r.strategy.size()));
  char line[512];
  std::snprintf(line, sizeof line, "%-*s %10s %10s %14s %13s %16s %7s %18s %18s\n", width,
                "strategy", "cpu_slack", "mem_slack", "cpu_shortfall", "ooms_per_day",
                "resizes_per_day", "cost", "cpu_slack_weighted", "mem_slack_weighted");
  out << line;
  for (const auto& r : rows) {
    std::snprintf(line, sizeof line,
                  "%-*s %10.3f %10.3f %14.4f %13.4f %16.3f %7.3f %18.3f %18.3f\n", width,
                  r.strategy.c_str(), r.cpu_slack, r.mem_slack, r.cpu_shortfall, r.ooms_per_day,
                  r.resizes_per_day, r.cost, r.cpu_slack_weighted, r.mem_slack_weighted);
    out << line;
  }
  if (!rows.empty()) out << "(" << rows.front().containers << " containers; update rules:";
  bool variants = false;
  for (const auto& r : rows) {
    // VPA's variants move the estimator's knobs, never its update rule: said once.
    const bool variant = recommender::is_vpa_spec(r.strategy) && r.strategy != "vpa";
    variants = variants || variant;
    if (!variant) out << "\n  " << r.strategy << ": " << r.update_rule;
  }
  if (variants) out << "\n  vpa:...: as vpa";
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
    out << (i ? "," : "") << "{\"strategy\":" << json_string(r.strategy)
        << ",\"cpu_slack\":" << json_number(r.cpu_slack)
        << ",\"mem_slack\":" << json_number(r.mem_slack)
        << ",\"cpu_shortfall\":" << json_number(r.cpu_shortfall)
        << ",\"ooms_per_day\":" << json_number(r.ooms_per_day)
        << ",\"resizes_per_day\":" << json_number(r.resizes_per_day)
        << ",\"cost\":" << json_number(r.cost)
        << ",\"cpu_slack_weighted\":" << json_number(r.cpu_slack_weighted)
        << ",\"mem_slack_weighted\":" << json_number(r.mem_slack_weighted)
        << ",\"containers\":" << r.containers << ",\"update_rule\":" << json_string(r.update_rule)
        << "}";
  }
  out << "]}\n";
}

}  // namespace tailor::cli
