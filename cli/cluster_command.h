// `tailor cluster up|down`: a local environment of real containerd nodes (one private instance
// per node, scripts/containerd/start.sh), tailor-cluster, one tailor-node-agent per node in
// embedded mode (--actuation=agent: it runs the pods through the CRI) and tailor-controller, all
// in the background with pid files and logs in DIR.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace tailor::cli {

struct ClusterUpOptions {
  std::string dir;
  int nodes = 0;                              // 0: as many as --node-allocatable flags, at least 1
  std::vector<std::string> node_allocatable;  // per node; the last one repeats
  bool controller = true;
  std::string bin_dir;      // "" : next to the tailor binary
  std::string scripts_dir;  // "" : the checkout's scripts/containerd
  std::string crds_dir;     // "" : the checkout's charts/tailor/crds
  int ready_timeout_seconds = 90;
  std::vector<std::string> controller_args;  // appended to tailor-controller's command line
  std::vector<std::string> agent_args;       // appended to every tailor-node-agent's
  std::vector<std::string> cluster_args;     // appended to tailor-cluster's
  // Tailor as pods (cli/cluster_install.h) instead of host processes: controller_args and
  // agent_args then go to the chart's extraArgs.
  bool install_tailor = false;
  std::string image;        // "" : <build>/image/tailor-<appVersion>.oci.tar
  std::string helm_render;  // "" : <build>/tests/tools/helm-render
  int install_timeout_seconds = 300;
};

// Parses `up` arguments; throws std::invalid_argument naming the flag.
ClusterUpOptions parse_cluster_up(const std::vector<std::string>& args);

// The allocatable of each node: the flags in order, the last repeated, "cpu=2,memory=2Gi" when
// none is given. Throws std::invalid_argument when more flags than nodes are given.
std::vector<std::string> node_sizes(const ClusterUpOptions& options);

// `tailor cluster VERB ...`; returns the exit code.
int run_cluster(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace tailor::cli
