// What `tailor report` reads from a live cluster: policies of both kinds, their pods and the
// controllers above them, and the checkpoints behind their recommendations, turned into the
// report's rows (cli/workload_report.h). The one place `report` does I/O against the API.
#pragma once

#include <string>
#include <vector>

#include "cli/workload_report.h"

namespace tailor::cli {

struct ClusterReport {
  std::vector<ContainerRow> rows{};
  // Policies left out (an invalid spec) or reported with a problem (a target that is gone).
  std::vector<std::string> warnings{};
  bool targets_gone = false;
  std::vector<UnpolicedWorkload> unpoliced{};  // workloads no policy acts on (for --all)
};

// Reads the cluster kubectl would (kubeconfig: the flag, $KUBECONFIG, in-cluster, ~/.kube/config;
// the context given or the current one); ns "" for every namespace. Throws std::runtime_error
// with a message fit for the user: the server cannot be reached, credentials rejected (401), a
// list forbidden (403: which verb and resource), an object that cannot be decoded (which one).
// A missing CRD (VPA's, or Tailor's checkpoints) is not an error: there are none of those.
ClusterReport read_cluster_report(const std::string& kubeconfig, const std::string& context,
                                  const std::string& ns);

}  // namespace tailor::cli
