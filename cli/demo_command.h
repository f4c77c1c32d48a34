// `tailor demo`: Tailor's main job on a local cluster (or an existing one with --kubeconfig),
// run to the end by itself: cluster up, scenario (demo_scenario.h), report, cluster down.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace tailor::cli {

struct DemoOptions {
  std::string dir{};         // the local cluster's directory; "" : a new temp directory
  std::string kubeconfig{};  // run against this cluster instead of starting one
  std::string json{};        // write the summary here
  bool keep = false;         // leave the cluster (and the demo's namespace) up
  int timeout_seconds = 300;
  std::string bin_dir{};  // passed to `tailor cluster up`
  // Tailor installed in the local cluster from its image and chart (cluster up
  // --install-tailor) instead of running beside it.
  bool in_cluster = false;
};

// Throws std::invalid_argument naming the flag.
DemoOptions parse_demo(const std::vector<std::string>& args);

int run_demo(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace tailor::cli
