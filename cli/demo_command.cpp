#include "cli/demo_command.h"

#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>

#include "cli/cluster_command.h"
#include "cli/cluster_crds.h"
#include "cli/command_flags.h"
#include "cli/demo_scenario.h"
#include "cli/demo_summary.h"
#include "cli/source_tree.h"

namespace tailor::cli {
namespace {
namespace fs = std::filesystem;

const char* kUsage =
    "Usage: tailor demo [--dir DIR] [--kubeconfig FILE] [--json FILE] [--keep] [--timeout "
    "SECONDS]\n"
    "                   [--bin-dir DIR] [--in-cluster]\n"
    "Starts a local cluster (tailor cluster up: a small and a big node on real containerd and\n"
    "tailor-controller), deploys busybox workloads whose CPU and memory use exceeds their\n"
    "requests, and shows live, read back from the API: recommendations in policy status,\n"
    "in-place resizes without restarts, a resize Infeasible on the small node recreated onto\n"
    "the big one, and a Deferred resize completing once capacity is freed. Ends with a report\n"
    "and stops the cluster (unless --keep). Exit 0 when every case happened.\n"
    "  --kubeconfig FILE  use this cluster (tailor-controller must run there) instead\n"
    "  --json FILE        write the summary as JSON\n"
    "  --timeout SECONDS  how long to wait for the cases (default 300)\n"
    "  --in-cluster       run Tailor in the local cluster as its users do: its image and\n"
    "                     chart installed into kube-system (tailor cluster up --install-tailor;\n"
    "                     needs `sudo make image` and the helm-render target built)\n"
    "Needs root for the local cluster.\n";

// The two nodes: the grower outgrows the small one; the big one holds its replacement.
const char* kSmallNode = "cpu=1,memory=1Gi";
const char* kBigNode = "cpu=4,memory=3Gi";

std::atomic<bool> g_interrupted{false};
extern "C" void on_signal(int) { g_interrupted = true; }

// The chart's CRDs, as `tailor cluster up` installs them.
std::vector<std::string> crd_files() {
  if (auto dir = find_above(self_dir(), "charts/tailor/crds")) return chart_crd_files(*dir);
  throw std::runtime_error("cannot find charts/tailor/crds above " + self_dir().string());
}

std::string temp_dir() {
  std::string pattern = (fs::temp_directory_path() / "tailor-demo-XXXXXX").string();
  if (!::mkdtemp(pattern.data())) throw std::runtime_error("cannot create a temp directory");
  return pattern;
}

std::string random_suffix() {
  std::random_device device;
  return std::to_string(std::uniform_int_distribution<int>(10000, 99999)(device));
}

std::vector<std::string> cluster_up_args(const DemoOptions& o) {
  std::vector<std::string> args{
      "up", "--dir", o.dir, "--node-allocatable", kSmallNode, "--node-allocatable", kBigNode,
      // Passes, usage reports and model samples every few seconds: the demo shows in
      // a minute what a real cluster does over its intervals.
      "--controller-arg=--pass-interval=2s", "--controller-arg=--sample-period=2s",
      "--agent-arg=--usage-sample-interval=1s", "--agent-arg=--usage-report-interval=2s"};
  if (!o.bin_dir.empty()) args.insert(args.end(), {"--bin-dir", o.bin_dir});
  // The same flags, given to the pods through the chart's extraArgs.
  if (o.in_cluster) args.push_back("--install-tailor");
  return args;
}

int to_seconds(const std::string& value) {
  std::size_t used = 0;
  int n = 0;
  try {
    n = std::stoi(value, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != value.size() || n < 1) {
    throw std::invalid_argument("--timeout: want a positive number of seconds, got \"" + value +
                                "\"");
  }
  return n;
}

int run(DemoOptions o, std::ostream& out, std::ostream& err) {
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  const bool local = o.kubeconfig.empty();
  demo::LiveView view(out, &out == &std::cout && ::isatty(STDOUT_FILENO));
  demo::RunInfo run{.ns = local ? "tailor-demo" : "tailor-demo-" + random_suffix(),
                    .cluster_kept = !local || o.keep,
                    .namespace_kept = o.keep};
  demo::ScenarioResult result;
  if (local) {
    if (o.dir.empty()) o.dir = temp_dir();
    o.dir = fs::absolute(o.dir).string();
    run.cluster_dir = o.dir;
    o.kubeconfig = (fs::path(o.dir) / "kubeconfig").string();
    view.step("Starting the cluster in " + o.dir + " (" + kSmallNode + " and " + kBigNode + ")");
    if (run_cluster(cluster_up_args(o), out, err) != 0) {
      err << "tailor demo: tailor cluster up failed (logs in " << o.dir << ")\n";
      return 1;
    }
  }
  run.kubeconfig = o.kubeconfig;
  try {
    result = demo::run_scenario({.kubeconfig = o.kubeconfig,
                                 .ns = run.ns,
                                 .crd_files = crd_files(),
                                 .timeout = std::chrono::seconds(o.timeout_seconds),
                                 .keep = o.keep,
                                 .interrupted = &g_interrupted},
                                view);
  } catch (const std::exception& e) {  // the CRD files are missing
    result.failure = e.what();
  }
  run.failure = result.failure;
  run.duration_seconds = view.elapsed();
  if (local && !o.keep) {
    view.step("Stopping the cluster");
    run_cluster({"down", "--dir", o.dir}, out, err);
  }
  const auto checks = demo::evaluate(result.summary, result.plan);
  out << demo::report_text(result.summary, result.plan, checks, run);
  if (!o.json.empty()) {
    std::ofstream(o.json) << demo::report_json(result.summary, result.plan, checks, run);
  }
  const bool ok = result.failure.empty() && demo::all_ok(checks);
  if (!ok) {
    err << "tailor demo: failed: "
        << (result.failure.empty() ? "a check did not hold (see above)" : result.failure) << "\n";
  }
  return ok ? 0 : 1;
}

}  // namespace

DemoOptions parse_demo(const std::vector<std::string>& args) {
  DemoOptions o;
  FlagReader flags(args);
  while (flags.next()) {
    const std::string& flag = flags.flag();
    auto take = [&flags] { return flags.value(); };
    if (flag == "--dir") {
      o.dir = take();
    } else if (flag == "--kubeconfig") {
      o.kubeconfig = take();
    } else if (flag == "--json") {
      o.json = take();
    } else if (flag == "--keep") {
      o.keep = true;
    } else if (flag == "--timeout") {
      o.timeout_seconds = to_seconds(take());
    } else if (flag == "--bin-dir") {
      o.bin_dir = take();
    } else if (flag == "--in-cluster") {
      o.in_cluster = true;
    } else {
      throw std::invalid_argument("unknown flag " + flag);
    }
  }
  if (!o.dir.empty() && !o.kubeconfig.empty()) {
    throw std::invalid_argument("--dir and --kubeconfig exclude each other");
  }
  if (o.in_cluster && !o.kubeconfig.empty()) {
    throw std::invalid_argument(
        "--in-cluster installs Tailor into the local cluster: not with "
        "--kubeconfig");
  }
  return o;
}

int run_demo(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  if (!args.empty() && (args[0] == "--help" || args[0] == "-h")) {
    out << kUsage;
    return 0;
  }
  try {
    return run(parse_demo(args), out, err);
  } catch (const std::invalid_argument& e) {
    err << "tailor demo: " << e.what() << "\n" << kUsage;
    return 2;
  } catch (const std::exception& e) {
    err << "tailor demo: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace tailor::cli
