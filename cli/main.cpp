#include <unistd.h>

#include <iostream>
#include <string>
#include <vector>

#include "cli/cluster_command.h"
#include "cli/cluster_dns.h"
#include "cli/cluster_proxy.h"
#include "cli/corpus_command.h"
#include "cli/demo_command.h"
#include "cli/replay_command.h"
#include "cli/report_command.h"
#include "cli/supervise.h"
#include "kube/observe/version.h"

namespace {
const char* kUsage =
    "Usage: tailor VERB [ARGS...]\n"
    "Verbs:\n"
    "  demo              Tailor's main job on a local cluster, to the end (tailor demo --help)\n"
    "  replay TRACE...   score recommenders on usage traces (tailor replay --help)\n"
    "  report            per workload under a policy: requests, recommendation, OOMs, cost\n"
    "                    (tailor report --help)\n"
    "  corpus --out DIR  write the synthetic trace corpus replay is judged on (tailor corpus -h)\n"
    "  cluster up|down   a local cluster on real containerd (tailor cluster --help)\n"
    "  version           print the version (the chart's appVersion; also --version)\n";
}

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << kUsage;
    return 2;
  }
  const std::string verb = argv[1];
  const std::vector<std::string> args(argv + 2, argv + argc);
  if (verb == "--help" || verb == "-h" || verb == "help") {
    std::cout << kUsage;
    return 0;
  }
  if (verb == "--version" || verb == "version") {
    std::cout << "tailor " << tailor::kube::observe::tailor_version() << "\n";
    return 0;
  }
  if (verb == "demo") return tailor::cli::run_demo(args, std::cout, std::cerr);
  if (verb == "replay") return tailor::cli::run_replay(args, std::cout, std::cerr);
  if (verb == "report") {
    return tailor::cli::run_report(args, std::cout, std::cerr, ::isatty(STDOUT_FILENO) != 0);
  }
  if (verb == "corpus") return tailor::cli::run_corpus(args, std::cout, std::cerr);
  if (verb == "cluster") return tailor::cli::run_cluster(args, std::cout, std::cerr);
  // Internal: how `cluster up` keeps its processes running (cli/supervise.h).
  if (verb == "supervise") return tailor::cli::run_supervise(args, std::cerr);
  // Internal: the cluster DNS `cluster up` runs (cli/cluster_dns.h).
  if (verb == "cluster-dns") return tailor::cli::run_cluster_dns(args, std::cerr);
  // Internal: the service proxy `cluster up` runs (cli/cluster_proxy.h).
  if (verb == "cluster-proxy") return tailor::cli::run_cluster_proxy(args, std::cerr);
  std::cerr << "tailor: unknown verb '" << verb << "'\n" << kUsage;
  return 2;
}
