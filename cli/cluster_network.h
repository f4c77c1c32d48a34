// The pod network of a `tailor cluster` node, as a cluster's CNI setup gives a kubelet's node: a
// bridge of the node's own with one /24 of 10.200.0.0/16, its gateway on the host, host-local
// IPAM keeping its leases under the node's directory. The node's containerd finds the conflist in
// its CNI conf dir and the plugins in Debian's /usr/lib/cni (scripts/containerd/start.sh), and
// runs them for each sandbox that is not hostNetwork; scripts/containerd/stop.sh removes the
// network namespaces left and the bridge.
//
// Why the choices: pods reach the host (its addresses, e.g. the gateway) and the other nodes'
// pods (the host routes between the bridges) without NAT, as the Kubernetes network model asks,
// so ipMasq is off; nothing here leaves the machine. No portmap: sandboxes are given no
// hostPort mappings. The loopback plugin is not in the list: containerd's CRI attaches it to
// every sandbox itself (from the same bin dir).
#pragma once

#include <filesystem>
#include <string>

namespace tailor::cli {

// Slots 0..255 of 10.200.0.0/16, one per node on the machine.
struct PodNetwork {
  int slot = 0;
  std::string bridge;   // "tailor-br<slot>": the name is how environments reserve a slot
  std::string subnet;   // "10.200.<slot>.0/24"
  std::string gateway;  // "10.200.<slot>.1", the host's address on the bridge
  // "10.201.<slot>.0/24": the Services' cluster IPs of the environment whose first node holds
  // this slot (tailor-cluster's --service-cluster-ip-range). A slot is one environment's, so
  // environments side by side never share a service range.
  std::string service_cidr;
  // "10.201.<slot>.10": kube-dns's ClusterIP in that range (its 10th address, as kubeadm takes
  // it; the lower band a range keeps for addresses asked for by name), which the cluster DNS
  // listens on and the agents pass pods (--cluster-dns). See add_cluster_dns_address.
  std::string cluster_dns;
};

inline constexpr int kPodNetworkSlots = 256;
inline constexpr const char* kCniBinDir = "/usr/lib/cni";
inline constexpr const char* kConflistName = "10-tailor-pods.conflist";

// Pure: the network of `slot` (0 <= slot < kPodNetworkSlots; std::invalid_argument otherwise).
PodNetwork pod_network(int slot);

// Pure: the CNI conflist of the node's network; `ipam_dir`: host-local's dataDir.
std::string pod_network_conflist(const PodNetwork& network, const std::filesystem::path& ipam_dir);

// Reserves the first free slot on this machine by creating its bridge (creation fails when
// another environment, or one that died without `down`, holds it), gives the bridge its gateway
// address and brings it up, then writes the conflist to
// `<containerd_dir>/cni/` with IPAM state in `<containerd_dir>/cni-ipam`. Throws when every slot
// is taken or `ip` fails otherwise.
PodNetwork set_up_pod_network(const std::filesystem::path& containerd_dir);

// Gives the host `network.cluster_dns` (/32) on the network's bridge, so that the cluster DNS can
// listen on kube-dns's ClusterIP before any service proxy routes cluster IPs: every pod of the
// environment reaches it through its gateway (the host's own address, whichever bridge), no
// other cluster IP is routed, and deleting the bridge (stop.sh) removes it. Added after the
// gateway's address, which stays the bridge's first: the CNI bridge plugin accepts a bridge
// whose first IPv4 address is its gateway and refuses one that starts with another. Throws when
// `ip` fails.
void add_cluster_dns_address(const PodNetwork& network);

}  // namespace tailor::cli
