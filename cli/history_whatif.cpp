#include "cli/history_whatif.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <ostream>
#include <set>
#include <sstream>
#include <stdexcept>

#include "cli/json_text.h"
#include "cli/report_output.h"
#include "cli/timeline_plot.h"
#include "controller/usage/prometheus_bootstrap.h"
#include "recommender/recorded_windows.h"
#include "recommender/strategy.h"
#include "recommender/trace.h"

namespace tailor::cli {
namespace {

namespace rec = tailor::recommender;
using controller::usage::UsageWindow;

// The pod's current sizing through the whole history: the as-run replay's "limits".
void hold_current_sizing(rec::ContainerSeries& s, const std::pair<double, double>& sizing) {
  s.has_limits = true;
  for (rec::TraceWindow& w : s.windows) {
    w.cpu_limit = sizing.first;
    w.memory_limit = sizing.second;
  }
}

}  // namespace

std::vector<rec::RecordedWindow> workload_recording(const UnpolicedWorkload& workload,
                                                    const std::vector<UsageWindow>& windows) {
  const std::set<std::string> pods(workload.pods.begin(), workload.pods.end());
  std::map<std::string, std::vector<rec::MeasuredWindow>> by_series;  // "pod/container"
  for (const UsageWindow& w : windows) {
    if (w.ns != workload.ns || !pods.count(w.pod)) continue;
    by_series[w.pod + "/" + w.container].push_back(
        {.start_ms = w.start_unix_ms,
         .end_ms = w.end_unix_ms,
         .cpu_mean_cores = w.cpu_cores_mean,
         .cpu_peak_cores = w.cpu_cores_max,
         .memory_peak_bytes = std::max(w.memory_peak_bytes, w.memory_working_set_max_bytes)});
  }
  std::vector<rec::RecordedWindow> recorded;
  for (auto& [key, list] : by_series) {
    std::sort(list.begin(), list.end(),
              [](const auto& a, const auto& b) { return a.start_ms < b.start_ms; });
    for (const auto& m : list) recorded.push_back({key, m});
  }
  return recorded;
}

std::vector<rec::ContainerSeries> workload_series(
    const std::vector<rec::RecordedWindow>& recording) {
  std::vector<rec::ContainerSeries> series;
  if (recording.empty()) return series;
  // Through the recording's text, so the windows fold exactly as `tailor replay` folds it.
  std::stringstream text;
  rec::write_recorded_windows(text, recording);
  rec::TraceDiagnostics diag;
  rec::read_trace_stream(text, "prometheus", series, diag);
  return series;
}

std::vector<rec::ContainerSeries> as_run_series(const UnpolicedWorkload& workload,
                                                std::vector<rec::ContainerSeries> series) {
  for (rec::ContainerSeries& s : series) {
    const std::string container = s.container.substr(s.container.find('/') + 1);
    const auto sizing = workload.requests.find(container);
    if (sizing != workload.requests.end()) hold_current_sizing(s, sizing->second);
  }
  return series;
}

WhatIfRow replay_workload(const UnpolicedWorkload& workload,
                          const std::vector<UsageWindow>& windows, bool plots) {
  WhatIfRow row{.workload = workload, .recording = workload_recording(workload, windows)};
  const auto series = workload_series(row.recording);
  row.series = series.size();
  if (series.empty()) {
    row.note = "no history in Prometheus";
    return row;
  }
  std::vector<std::unique_ptr<rec::StrategyFactory>> factories;
  std::vector<const rec::StrategyFactory*> views;
  for (const char* name : {"vpa", "default"}) {
    factories.push_back(rec::make_strategy(name));
    views.push_back(factories.back().get());
  }
  // The strategies on the history alone, as `tailor replay` of the recording replays them; the
  // as-run on the same history at the pods' current sizing.
  row.rows = rec::replay_table(series, views);
  if (row.rows.empty() || row.rows.front().containers == 0) {
    row.rows.clear();
    row.note = "no history past the 24 h warm-up";
    return row;
  }
  row.rows.front() = rec::replay_table(as_run_series(workload, series), {}).front();
  for (std::size_t i = 0; plots && i < series.size() && i < kMaxPlots; ++i) {
    std::ostringstream svg;
    write_strategy_timelines(svg, series[i], views);
    row.plots.push_back(svg.str());
  }
  return row;
}

std::vector<WhatIfRow> replay_from_prometheus(
    const std::vector<UnpolicedWorkload>& workloads,
    const controller::usage::PrometheusHistoryOptions& options, std::int64_t until_s,
    const std::function<void(std::size_t, std::size_t)>& on_page, bool plots) {
  std::set<std::pair<std::string, std::string>> wanted;  // (namespace, pod)
  for (const auto& w : workloads) {
    for (const auto& p : w.pods) wanted.emplace(w.ns, p);
  }
  std::vector<UsageWindow> windows;
  const std::size_t total = controller::usage::history_pages(until_s, options).size();
  std::size_t asked = 0;
  // The bootstrap asks whether to stop before each page: the pages done so far.
  const auto result = controller::usage::bootstrap_from_prometheus(
      options, until_s,
      [&](const UsageWindow& w) {
        if (wanted.count({w.ns, w.pod})) windows.push_back(w);
      },
      [&]() {
        if (on_page) on_page(asked, total);
        ++asked;
        return false;
      });
  if (!result.error.empty()) {
    throw std::runtime_error("reading history from Prometheus at " + options.address + ": " +
                             result.error);
  }
  if (on_page) on_page(total, total);
  std::vector<WhatIfRow> rows;
  for (const auto& w : workloads) rows.push_back(replay_workload(w, windows, plots));
  return rows;
}

std::string progress_bar(std::size_t done, std::size_t total) {
  constexpr std::size_t kBar = 40;
  const std::size_t filled = total == 0 ? kBar : std::min(kBar, done * kBar / total);
  return "\r[" + std::string(filled, '#') + std::string(kBar - filled, '.') + "] " +
         std::to_string(done) + "/" + std::to_string(total) + " pages" +
         (done >= total ? "\n" : "");
}

void print_whatif_table(std::ostream& out, const std::vector<WhatIfRow>& rows) {
  out << "\nWithout a policy, replayed from Prometheus (slack and shortfall as tailor replay "
         "scores them):\n";
  if (rows.empty()) {
    out << "  (none)\n";
    return;
  }
  char line[160];
  std::snprintf(line, sizeof line, "  %-10s %9s %9s %13s %12s %15s\n", "STRATEGY", "CPU_SLACK",
                "MEM_SLACK", "CPU_SHORTFALL", "OOMS_PER_DAY", "RESIZES_PER_DAY");
  out << line;
  for (const WhatIfRow& w : rows) {
    out << fit(w.workload.ns + "/" + w.workload.kind + "/" + w.workload.name + "  (" +
                   std::to_string(w.workload.pods.size()) + " pods, " + std::to_string(w.series) +
                   " series)",
               kTableWidth)
        << "\n";
    if (!w.note.empty()) out << "  " << fit(w.note, kTableWidth - 2) << "\n";
    for (const auto& r : w.rows) {
      std::snprintf(line, sizeof line, "  %-10s %9s %9s %13s %12s %15s\n",
                    fit(r.strategy, 10).c_str(), printed("%.3f", r.cpu_slack).c_str(),
                    printed("%.3f", r.mem_slack).c_str(), printed("%.4f", r.cpu_shortfall).c_str(),
                    printed("%.4f", r.ooms_per_day).c_str(),
                    printed("%.3f", r.resizes_per_day).c_str());
      out << line;
    }
  }
}

void write_whatif_html(std::ostream& out, const std::vector<WhatIfRow>& rows) {
  out << "<h2>Without a policy, replayed from Prometheus</h2>\n";
  if (rows.empty()) out << "<p>(none)</p>\n";
  for (const WhatIfRow& w : rows) {
    out << "<h3>" << html_escape(w.workload.ns + "/" + w.workload.kind + "/" + w.workload.name)
        << "</h3>\n<p>" << w.workload.pods.size() << " pods, " << w.series << " series"
        << (w.note.empty() ? "" : ": " + html_escape(w.note)) << "</p>\n";
    if (!w.rows.empty()) {
      out << "<table><tr><th>strategy</th><th>cpu slack</th><th>mem slack</th>"
             "<th>cpu shortfall</th><th>OOMs/day</th><th>resizes/day</th></tr>\n";
      for (const auto& r : w.rows) {
        out << "<tr><td>" << html_escape(r.strategy) << "</td><td class=\"n\">"
            << printed("%.3f", r.cpu_slack) << "</td><td class=\"n\">"
            << printed("%.3f", r.mem_slack) << "</td><td class=\"n\">"
            << printed("%.4f", r.cpu_shortfall) << "</td><td class=\"n\">"
            << printed("%.4f", r.ooms_per_day) << "</td><td class=\"n\">"
            << printed("%.3f", r.resizes_per_day) << "</td></tr>\n";
      }
      out << "</table>\n";
    }
    for (const std::string& svg : w.plots) out << "<div class=\"plot\">" << svg << "</div>\n";
  }
}

void write_whatif_json(std::ostream& out, const std::vector<WhatIfRow>& rows) {
  out << "\"replayed\":[";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const WhatIfRow& w = rows[i];
    out << (i ? "," : "") << "{\"namespace\":" << json_string(w.workload.ns)
        << ",\"workload\":{\"kind\":" << json_string(w.workload.kind)
        << ",\"name\":" << json_string(w.workload.name) << "},\"pods\":" << w.workload.pods.size()
        << ",\"series\":" << w.series << ",\"note\":" << json_string(w.note) << ",\"rows\":[";
    for (std::size_t j = 0; j < w.rows.size(); ++j) {
      const auto& r = w.rows[j];
      out << (j ? "," : "") << "{\"strategy\":" << json_string(r.strategy)
          << ",\"cpu_slack\":" << json_exact(r.cpu_slack)
          << ",\"mem_slack\":" << json_exact(r.mem_slack)
          << ",\"cpu_shortfall\":" << json_exact(r.cpu_shortfall)
          << ",\"ooms_per_day\":" << json_exact(r.ooms_per_day)
          << ",\"resizes_per_day\":" << json_exact(r.resizes_per_day)
          << ",\"containers\":" << r.containers << "}";
    }
    out << "]}";
  }
  out << "]";
}

}  // namespace tailor::cli
