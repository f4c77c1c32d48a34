// Cluster DNS of `tailor cluster up`, what CoreDNS's kubernetes plugin serves on a kubelet
// cluster (the Kubernetes DNS spec, schema 1.1.0) for the records Tailor's pods need:
//   <svc>.<ns>.svc.<zone>             A: spec.clusterIP of a ClusterIP Service; of a headless one
//                                     (clusterIP None), the IPs of its ready endpoints;
//   <hostname>.<svc>.<ns>.svc.<zone>  A: a headless Service's endpoint with a hostname (the
//                                     EndpointSlice controller's, for a pod with spec.hostname
//                                     and spec.subdomain = <svc>);
//   any other name in <zone>          NXDOMAIN;
//   names outside <zone>              forwarded to the host's resolvers (/etc/resolv.conf), as
//                                     CoreDNS's `forward . /etc/resolv.conf`: a pod resolves what
//                                     the host resolves, and a name the host cannot resolve fails
//                                     as it does there (NXDOMAIN, not a timeout, here).
// The server is Debian's dnsmasq (`--local=/<zone>/`: only its own records in the zone;
// `--hostsdir`: a hosts file it re-reads on change), listening on one address of the environment
// (kube-dns's ClusterIP, which the host holds on the first node's bridge, see
// cli/cluster_network.h), never on the host's port 53 of all
// addresses. `tailor cluster-dns` runs it as its child and keeps its hosts file in step with the
// Services and EndpointSlices (the decoders of cli/cluster_proxy.h).
// Not served: SRV and PTR records, ExternalName CNAMEs, pod A records (<a-b-c-d>.<ns>.pod.<zone>).
#pragma once

#include <filesystem>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "cli/cluster_proxy.h"

namespace tailor::cli {

inline constexpr const char* kClusterDomain = "cluster.local";
inline constexpr const char* kDnsmasq = "/usr/sbin/dnsmasq";

// The hosts file (one "IP name" line per record, sorted) of the records above, from the Services
// and the EndpointSlices (as CoreDNS reads them: a headless Service's endpoints whose ready
// condition is not false, their hostname for the endpoint's own record). Pure.
std::string cluster_dns_hosts(const std::vector<ProxyService>& services,
                              const std::vector<SliceView>& slices,
                              const std::string& zone = kClusterDomain);

// dnsmasq's command line: in the foreground, logging to stderr, no config file, /etc/hosts or
// DHCP, listening on `listen` only, the zone answered from `hosts_dir` alone. Pure.
std::vector<std::string> dnsmasq_command(const std::string& dnsmasq, const std::string& listen,
                                         const std::filesystem::path& hosts_dir,
                                         const std::string& zone = kClusterDomain);

// kube-system/kube-dns as kubeadm names the cluster DNS Service (labels k8s-app=kube-dns,
// ports dns 53/UDP, dns-tcp 53/TCP), its spec.clusterIP the address the DNS listens on: the
// address the agents pass pods (--cluster-dns), as a kubelet's --cluster-dns is kube-dns's
// ClusterIP. No selector: the server is no pod. Pure.
std::string kube_dns_service(const std::string& dns_ip);
// Its EndpointSlice (no selector: written here, not by the EndpointSlice controller), naming the
// address the DNS listens on, so the service proxy sends the ClusterIP's port 53 there rather
// than rejecting it as a Service without endpoints. Pure.
std::string kube_dns_endpoint_slice(const std::string& dns_ip);
// Creates both (replacing those an earlier `up` on the same DIR left with another address).
void publish_kube_dns_service(const std::filesystem::path& kubeconfig, const std::string& dns_ip);

// `tailor cluster-dns --kubeconfig FILE --dir DIR --listen IP [--zone Z] [--dnsmasq PATH]`:
// starts dnsmasq (it dies with this process), then writes DIR/hosts/cluster from watches on
// Services and EndpointSlices until dnsmasq exits (then returns 1, for the supervisor to start both
// again).
int run_cluster_dns(const std::vector<std::string>& args, std::ostream& err);

}  // namespace tailor::cli
