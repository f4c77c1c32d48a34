#include "cli/report_command.h"

#include <boost/json.hpp>
#include <cmath>
#include <cstdlib>
#include <ostream>
#include <sstream>

#include "cli/cluster_reader.h"
#include "cli/report_output.h"

namespace tailor::cli {
namespace {

const char* kUsage =
    "Usage: tailor report [--kubeconfig FILE] [--context NAME] [-n NAMESPACE]\n"
    "                     [-o table|json|csv|html] [--cpu-price P] [--memory-price P]\n"
    "Every workload under a VerticalScalingPolicy or VerticalPodAutoscaler object, per "
    "container:\n"
    "its current requests and limits (from its pods), the target and bounds in the policy's\n"
    "status.recommendation, the change, the history behind it (days and samples of the policy's\n"
    "VerticalScalingCheckpoint; \"unknown\" before one is written), its OOM kills in the last day\n"
    "and the monthly cost of the change ((target - request) x pods x price x 730 h).\n"
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
    "Exit status: 0 when reported; 1 when the cluster could not be read (nothing is printed) or a\n"
    "policy's target is gone (reported, with a warning); 2 for a bad command line.\n";

struct Options {
  std::string kubeconfig, context, ns, output = "table";
  Prices prices;
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
    } else {
      throw UsageError("unknown argument '" + args[i] + "'");
    }
  }
  return o;
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
  try {
    report = read_cluster_report(o.kubeconfig, o.context, o.ns);
  } catch (const std::exception& e) {
    err << "tailor report: " << e.what() << "\n";
    return 1;
  }
  // Formatted whole before anything is written: a failure never leaves half a report.
  std::ostringstream text;
  if (o.output == "json") {
    write_report_json(text, report.rows, o.prices);
  } else if (o.output == "csv") {
    write_report_csv(text, report.rows, o.prices);
  } else if (o.output == "html") {
    write_report_html(text, report.rows, o.prices);
  } else {
    print_report_table(text, report.rows, o.prices,
                       {want_colour(out_is_terminal, std::getenv("NO_COLOR"))});
  }
  out << text.str() << std::flush;
  for (const auto& w : report.warnings) err << "tailor report: warning: " << w << "\n";
  return report.targets_gone ? 1 : 0;
}

}  // namespace tailor::cli
