#include "cli/report_command.h"

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>

#include "cli/cluster_reader.h"
#include "cli/history_whatif.h"
#include "cli/policy_shortfall.h"
#include "cli/report_output.h"

namespace tailor::cli {
namespace {

const char* kUsage =
    "Usage: tailor report [--kubeconfig FILE] [--context NAME] [-n NAMESPACE]\n"
    "                     [-o table|json|csv|html] [--cpu-price P] [--memory-price P]\n"
    "                     [--prometheus URL [--all [--history 8d] [--resolution 5m]]]\n"
    "Every workload under a VerticalScalingPolicy or VerticalPodAutoscaler object, per "
    "container:\n"
    "its current requests and limits (from its pods), the target and bounds in the policy's\n"
    "status.recommendation, the change, the history behind it (days and samples of the policy's\n"
    "VerticalScalingCheckpoint; \"unknown\" before one is written), its OOM kills and CPU\n"
    "shortfall (with --prometheus: CPU used beyond the request, core-seconds, as\n"
    "tailor-controller's tailor_workload_cpu_shortfall_core_seconds_total counts it) in the last\n"
    "day, and the monthly cost of the change ((target - request) x pods x price x 730 h).\n"
    "Cluster: --kubeconfig, else $KUBECONFIG, else in-cluster (service account), else\n"
    "~/.kube/config, as kubectl; the current context unless --context.\n"
    "Options:\n"
    "  -n, --namespace NS   one namespace only (default: all)\n"
    "  -o, --output FORMAT  table (default; 100 columns, colour on a terminal unless NO_COLOR),\n"
    "                       json, csv, or html (one self-contained page)\n"
    "  --cpu-price P        USD per core-hour (default 0.021811)\n"
    "  --memory-price P     USD per GiB-hour (default 0.002923)\n"
    "                       The defaults are Google Compute Engine's on-demand E2 prices in\n"
    "                       us-central1.\n"
    "  --all                also every workload without a policy, replayed from its Prometheus\n"
    "                       history (tailor-controller --storage=prometheus's queries over\n"
    "                       cAdvisor's metrics) through vpa, default and the as-run (the pods'\n"
    "                       current sizing held), scored as tailor replay scores; a progress bar\n"
    "                       on stderr. Not with csv; html adds each workload's plots (usage and\n"
    "                       the requests each strategy sets, as tailor replay --plot-dir draws).\n"
    "  --prometheus URL     the Prometheus to read: the policy rows' CPU shortfall from the\n"
    "                       controller's series it scrapes; the history of --all (needed by it)\n"
    "  --history D          how far back (Prometheus duration, default 8d)\n"
    "  --resolution D       window length (default 5m, the replay's sample period)\n"
    "  --save-history DIR   also write each replayed workload's history as a recording\n"
    "                       (DIR/NAMESPACE_KIND_NAME.csv) that tailor replay reads\n"
    "Exit status: 0 when reported; 1 when the cluster could not be read (nothing is printed) or a\n"
    "policy's target is gone (reported, with a warning); 2 for a bad command line.\n";

// A person waits for the answer, as for the API server's (cluster_reader.cpp).
constexpr std::chrono::seconds kShortfallTimeout{30};

struct Options {
  std::string kubeconfig, context, ns, output = "table";
  Prices prices;
  bool all = false;
  std::string save_history;
  controller::usage::PrometheusHistoryOptions history{
      .history_length_s = 8 * 24 * 3600, .resolution_s = 300, .page_steps = 288};
};

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

double parse_price(const std::string& flag, const std::string& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(v) || v < 0) {
    throw UsageError(flag + ": '" + text + "' is not a price (a number >= 0, USD per " +
                     (flag == "--cpu-price" ? "core-hour" : "GiB-hour") + ")");
  }
  return v;
}

std::int64_t parse_duration_s(const std::string& flag, const std::string& text) {
  try {
    const auto d = controller::usage::parse_prometheus_duration(text);
    if (d.count() < 1000 || d.count() % 1000 != 0) throw std::invalid_argument("whole seconds");
    return d.count() / 1000;
  } catch (const std::invalid_argument&) {
    throw UsageError(flag + ": '" + text + "' is not a duration in whole seconds (e.g. 8d, 5m)");
  }
}

// --flag VALUE and --flag=VALUE; -n / -o take the next argument.
Options parse(const std::vector<std::string>& args, bool& help) {
  Options o;
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string flag = args[i], value;
    const bool has_inline = flag.rfind("--", 0) == 0 && flag.find('=') != std::string::npos;
    if (has_inline) {
      value = flag.substr(flag.find('=') + 1);
      flag = flag.substr(0, flag.find('='));
    }
    if (flag == "-h" || flag == "--help") {
      help = true;
      continue;
    }
    auto take = [&]() {
      if (has_inline) return value;
      if (i + 1 >= args.size()) throw UsageError(flag + " needs a value");
      return args[++i];
    };
    if (flag == "--kubeconfig") {
      o.kubeconfig = take();
    } else if (flag == "--context") {
      o.context = take();
    } else if (flag == "-n" || flag == "--namespace") {
      o.ns = take();
    } else if (flag == "-o" || flag == "--output") {
      o.output = take();
      if (o.output != "table" && o.output != "json" && o.output != "csv" && o.output != "html") {
        throw UsageError("--output: '" + o.output + "' is not one of table, json, csv, html");
      }
    } else if (flag == "--cpu-price") {
      o.prices.cpu_core_hour = parse_price(flag, take());
    } else if (flag == "--memory-price") {
      o.prices.memory_gib_hour = parse_price(flag, take());
    } else if (flag == "--all") {
      o.all = true;
    } else if (flag == "--save-history") {
      o.save_history = take();
    } else if (flag == "--prometheus") {
      o.history.address = take();
    } else if (flag == "--history") {
      o.history.history_length_s = parse_duration_s(flag, take());
    } else if (flag == "--resolution") {
      o.history.resolution_s = parse_duration_s(flag, take());
    } else {
      throw UsageError("unknown argument '" + args[i] + "'");
    }
  }
  if (o.all && o.history.address.empty()) throw UsageError("--all needs --prometheus URL");
  if (o.all && o.output == "csv") throw UsageError("--all reports in table, json or html, not csv");
  return o;
}

void save_recordings(const std::string& dir, const std::vector<WhatIfRow>& rows) {
  std::filesystem::create_directories(dir);
  for (const WhatIfRow& w : rows) {
    if (w.recording.empty()) continue;
    const std::string path =
        dir + "/" + w.workload.ns + "_" + w.workload.kind + "_" + w.workload.name + ".csv";
    std::ofstream file(path);
    recommender::write_recorded_windows(file, w.recording);
    if (!file) throw std::runtime_error(path + ": cannot write");
  }
}

}  // namespace

int run_report(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
               bool out_is_terminal) {
  Options o;
  bool help = false;
  try {
    o = parse(args, help);
  } catch (const UsageError& e) {
    err << "tailor report: " << e.what() << "\n" << kUsage;
    return 2;
  }
  if (help) {
    out << kUsage;
    return 0;
  }
  ClusterReport report;
  std::vector<WhatIfRow> replayed;
  bool bar_open = false;  // a progress bar without its newline yet
  try {
    report = read_cluster_report(o.kubeconfig, o.context, o.ns);
    if (o.all) {
      const std::int64_t now_s = std::chrono::duration_cast<std::chrono::seconds>(
                                     std::chrono::system_clock::now().time_since_epoch())
                                     .count();
      replayed = replay_from_prometheus(
          report.unpoliced, o.history, now_s,
          [&](std::size_t done, std::size_t total) {
            err << progress_bar(done, total) << std::flush;
            bar_open = done < total;
          },
          o.output == "html");
      if (!o.save_history.empty()) save_recordings(o.save_history, replayed);
    }
    if (!o.history.address.empty()) {
      attach_shortfall(report.rows, read_shortfall(o.history.address, o.ns, kShortfallTimeout));
    }
  } catch (const std::exception& e) {
    err << (bar_open ? "\n" : "") << "tailor report: " << e.what() << "\n";
    return 1;
  }
  // Formatted whole before anything is written: a failure never leaves half a report.
  std::ostringstream text;
  if (o.output == "json") {
    std::ostringstream more;
    if (o.all) write_whatif_json(more, replayed);
    write_report_json(text, report.rows, o.prices, more.str());
  } else if (o.output == "csv") {
    write_report_csv(text, report.rows, o.prices);
  } else if (o.output == "html") {
    std::ostringstream more;
    if (o.all) write_whatif_html(more, replayed);
    write_report_html(text, report.rows, o.prices, more.str());
  } else {
    print_report_table(text, report.rows, o.prices,
                       {want_colour(out_is_terminal, std::getenv("NO_COLOR"))});
    if (o.all) print_whatif_table(text, replayed);
  }
  out << text.str() << std::flush;
  for (const auto& w : report.warnings) err << "tailor report: warning: " << w << "\n";
  return report.targets_gone ? 1 : 0;
}

}  // namespace tailor::cli
