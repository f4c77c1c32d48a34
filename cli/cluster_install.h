// `tailor cluster up --install-tailor`: Tailor installed into the environment as its users install
// it — the image (`make image`) imported into each node's containerd, the chart rendered by Helm's
// engine (tests/tools/helm-render) with values for this environment, applied to kube-system,
// and waited for until the controller Deployment and the node-agent DaemonSet are Ready. The
// controller and the DaemonSet's agents then run as pods under their ServiceAccounts' tokens;
// the host-process agents keep the kubelet's role only (charts/tailor/README.md, "On `tailor
// cluster up`").
#pragma once

#include <chrono>
#include <filesystem>
#include <iosfwd>
#include <string>
#include <vector>

namespace tailor::cli {

struct InstallSources {
  std::filesystem::path image;        // the OCI archive of `make image`
  std::string image_name;             // docker.io/library/tailor:<appVersion>
  std::filesystem::path helm_render;  // Helm's template engine (a test tool of this repository)
  std::filesystem::path chart;        // charts/tailor
};

// The chart (charts/tailor above `from`, the tailor binary's directory), the image (`image`,
// else <build>/image/tailor-<appVersion>.oci.tar) and helm-render (`helm_render`, else
// <build>/tests/tools/helm-render), <build> being the parent of `from` (build/bin). Throws
// std::runtime_error saying what to build or pass when one is missing, and when kubectl is not
// on the PATH.
InstallSources find_install_sources(const std::filesystem::path& from, const std::string& image,
                                    const std::string& helm_render);

// The directory standing for a node's root in its pods' hostPath volumes (the agent's
// --host-path-root), NODE_DIR/root: run/containerd/containerd.sock links to the node's own
// containerd socket, sys/fs/cgroup to the machine's cgroups (which every node's pods share),
// var/lib/kubelet/pki/kubelet-client-current.pem holds the node's usage certificate and key (what
// a kubelet's client certificate is to the chart), and var/lib/tailor-node-agent is the node's
// own. Returns it.
std::filesystem::path make_node_host_root(const std::filesystem::path& node_dir,
                                          const std::string& socket,
                                          const std::filesystem::path& usage_tls_dir,
                                          const std::string& node);

// Renders the chart into DIR/tailor/manifest.yaml (values in DIR/tailor/values.yaml), applies
// it and the usage client CA's ConfigMap to kube-system with kubectl, and waits until the
// Deployment's and the DaemonSet's pods are Ready on `nodes` nodes; throws with the pods'
// states and their logs' tails when they are not within `timeout`, or when a process whose pid
// file is in `watched` exits.
void install_tailor(const InstallSources& sources, const std::filesystem::path& dir,
                    const std::vector<std::string>& controller_args,
                    const std::vector<std::string>& agent_args, int nodes,
                    const std::vector<std::filesystem::path>& watched, std::chrono::seconds timeout,
                    std::ostream& out);

}  // namespace tailor::cli
