#include "cli/replay_command.h"

#include <algorithm>
#include <boost/program_options.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <tuple>

#include "cli/json_text.h"
#include "cli/report.h"
#include "cli/timeline_plot.h"
#include "recommender/frontier.h"
#include "recommender/frontier_svg.h"
#include "recommender/replay.h"
#include "recommender/trace.h"
#include "recommender/vpa_knobs.h"

namespace tailor::cli {
namespace po = boost::program_options;
namespace rec = tailor::recommender;

namespace {

const char* kUsage =
    "Usage: tailor replay TRACE... [--json FILE] [--strategy NAME]... [--frontier]\n"
    "                              [--curve-svg FILE] [--plot-dir DIR]\n"
    "Replays usage traces (files or directories of .csv / .csv.gz) through the as-run limits and "
    "each\n"
    "strategy as docs/scoring.md defines (24 h warm-up, a gap over 1 h is a new pod,\n"
    "memory request = limit, 25m / 250Mi minimum) and prints the scoring table.\n"
    "Trace formats: Google 2019 per-task CSV (header has time, avg_cpu_usage, ...) or the\n"
    "generic CSV: time_s,container,cpu_cores,memory_bytes[,max_cpu_cores,p95_cpu_cores,\n"
    "max_memory_bytes,cpu_limit_cores,memory_limit_bytes], or a recording of usage windows\n"
    "(tailor-controller --record-usage): container,start_unix_ms,end_unix_ms,cpu_cores_mean,\n"
    "cpu_cores_max,memory_peak_bytes, folded into 5-minute periods as the live models fold them.\n"
    "Strategies: default, vpa, and VPA with its knobs moved, named as written:\n"
    "  vpa:cpu-percentile=P,cpu-margin=M,memory-percentile=P,memory-margin=M (any subset;\n"
    "  percentiles in (0, 1], margins in [0, 1]; VPA's defaults 0.9 and 0.15).\n"
    "--frontier adds VPA's standard curve points (each knob moved alone) and says where every\n"
    "other row lies against VPA's curve; --curve-svg draws the curves and the rows.\n";

std::string safe_name(std::string s) {
  for (char& c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') c = '_';
  }
  return s;
}

void write_plots(const std::string& dir, const std::vector<rec::ContainerSeries>& series,
                 const std::vector<const rec::StrategyFactory*>& strategies) {
  std::filesystem::create_directories(dir);
  for (std::size_t i = 0; i < series.size(); ++i) {
    const std::string path =
        dir + "/" + std::to_string(i) + "-" + safe_name(series[i].container) + ".svg";
    std::ofstream out(path);
    if (!out) throw std::runtime_error(path + ": cannot open for writing");
    write_strategy_timelines(out, series[i], strategies);
  }
}

// Where each row that is not one of VPA's curve points lies against VPA's curves, and (memory)
// whether it OOMs more than the vpa row: docs/scoring.md's "ahead of VPA" asks both.
void print_verdicts(std::ostream& out, const std::vector<rec::ScoreRow>& rows) {
  const auto vpa = std::find_if(rows.begin(), rows.end(),
                                [](const rec::ScoreRow& r) { return r.strategy == "vpa"; });
  out << "Against VPA's curves (best of its points, linear between them):\n";
  for (auto [r, name, x_name] : {std::tuple{rec::Resource::cpu, "cpu", "cpu_shortfall"},
                                 std::tuple{rec::Resource::memory, "memory", "ooms_per_day"}}) {
    const auto envelope = rec::lower_envelope(rec::vpa_curve_points(rows, r));
    for (const auto& row : rows) {
      if (row.strategy == "as-run" || rec::is_vpa_curve_row(row.strategy)) continue;
      const rec::CurvePoint p = rec::curve_point(row, r);
      const rec::CurveVerdict v = rec::compare_to_curve(envelope, p.x, p.y);
      out << "  " << row.strategy << " " << name << ": slack " << printed("%.3f", p.y) << " at "
          << x_name << " " << printed("%.4f", p.x);
      if (v.curve_y) out << ", VPA's curve there " << printed("%.3f", *v.curve_y);
      out << ": " << rec::side_name(v.side);
      if (r == rec::Resource::memory && vpa != rows.end()) {
        out << "; " << (row.ooms_per_day > vpa->ooms_per_day ? "more" : "no more")
            << " OOMs than vpa (" << printed("%.4f", vpa->ooms_per_day) << ")";
      }
      out << "\n";
    }
  }
}

}  // namespace

int run_replay(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  std::vector<std::string> traces, strategies;
  std::string json_path, plot_dir, curve_svg;
  po::options_description opts("Options");
  opts.add_options()("help,h", "show this help")("json", po::value(&json_path),
                                                 "write the table as JSON to FILE")(
      "strategy", po::value(&strategies)->composing(),
      "strategy to replay (repeatable; default: vpa and default)")(
      "frontier", "add VPA's standard curve points and compare every other row with them")(
      "curve-svg", po::value(&curve_svg),
      "write the trade-off curves (CPU and memory) with every row's point as an SVG")(
      "plot-dir", po::value(&plot_dir), "write one SVG per container (usage and requests)")(
      "per-container", "also print each container's figures")(
      "trace", po::value(&traces)->composing(), "trace file or directory");
  po::positional_options_description positional;
  positional.add("trace", -1);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(opts).positional(positional).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    err << "tailor replay: " << e.what() << "\n" << kUsage;
    return 2;
  }
  if (vm.count("help")) {
    out << kUsage << opts;
    return 0;
  }
  if (traces.empty()) {
    err << "tailor replay: no TRACE given\n" << kUsage;
    return 2;
  }
  if (strategies.empty()) strategies = {"vpa", "default"};
  const bool frontier = vm.count("frontier") > 0;
  if (frontier) {
    // The curve needs VPA's own defaults as one of its points.
    if (std::find(strategies.begin(), strategies.end(), "vpa") == strategies.end()) {
      strategies.insert(strategies.begin(), "vpa");
    }
    for (const auto& spec : rec::vpa_frontier_specs()) {
      if (std::find(strategies.begin(), strategies.end(), spec) == strategies.end()) {
        strategies.push_back(spec);
      }
    }
  }
  // A strategy that cannot be built is a usage error, found before any trace is read.
  std::vector<std::unique_ptr<rec::StrategyFactory>> factories;
  std::vector<const rec::StrategyFactory*> views;
  try {
    for (const auto& name : strategies) {
      factories.push_back(rec::make_strategy(name));
      views.push_back(factories.back().get());
    }
  } catch (const std::invalid_argument& e) {
    err << "tailor replay: " << e.what() << "\n" << kUsage;
    return 2;
  }
  try {
    rec::TraceDiagnostics diag;
    const auto series = rec::read_traces(traces, diag);
    for (const auto& m : diag.messages) err << "tailor replay: " << m << "\n";
    if (diag.rows_rejected > 0 || diag.values_clamped > 0) {
      err << "tailor replay: " << diag.rows_rejected << " of " << diag.rows_read
          << " rows rejected, " << diag.values_clamped << " values clamped\n";
    }
    if (series.empty()) {
      err << "tailor replay: the traces hold no usable rows\n";
      return 1;
    }
    const auto rows = rec::replay_table(series, views);
    if (rows.front().containers == 0) {
      err << "tailor replay: no container runs past the 24 h warm-up, nothing to score\n";
      return 1;
    }
    print_table(out, rows);
    if (frontier) print_verdicts(out, rows);
    if (vm.count("per-container")) print_per_container(out, rows);
    if (!json_path.empty()) {
      std::ofstream json(json_path);
      if (!json) throw std::runtime_error(json_path + ": cannot open for writing");
      write_json(json, rows);
    }
    if (!curve_svg.empty()) {
      std::ofstream svg(curve_svg);
      if (!svg) throw std::runtime_error(curve_svg + ": cannot open for writing");
      std::string title;
      for (const auto& t : traces) title += (title.empty() ? "" : " ") + t;
      rec::write_tradeoff_svg(
          svg, title + " (" + std::to_string(rows.front().containers) + " containers)", rows);
    }
    if (!plot_dir.empty()) write_plots(plot_dir, series, views);
  } catch (const std::exception& e) {
    err << "tailor replay: " << e.what() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace tailor::cli
