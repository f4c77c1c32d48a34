// The Helm values `tailor cluster up --install-tailor` (and `tailor demo --in-cluster`) renders
// Tailor's chart with; a library part so that tests/cli/unit can read them.
#pragma once

#include <string>
#include <vector>

namespace tailor::cli {

// The ConfigMap (kube-system) holding the CA of the agents' usage client certificates.
inline constexpr const char* kUsageClientCaConfigMap = "tailor-usage-client-ca";

// The values `up` renders the chart with (JSON, which is YAML): the DaemonSet in kubelet mode
// (the host-process agents are the kubelets), cgroupfs, the usage client CA from the
// tailor-usage-client-ca ConfigMap, the chart's NetworkPolicy kept (stored; nothing here
// enforces it), one controller replica, and the given extra flags of the controller and the agents.
std::string install_values(const std::vector<std::string>& controller_args,
                           const std::vector<std::string>& agent_args);

}  // namespace tailor::cli
