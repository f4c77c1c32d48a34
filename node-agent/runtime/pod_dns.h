// A pod's DNS settings as the kubelet forms them (pkg/kubelet/network/dns, GetPodDNS), handed to
// the runtime in PodSandboxConfig.dns_config so it writes the pod's /etc/resolv.conf:
//   ClusterFirst (the default)  the cluster DNS servers (--cluster-dns), searches
//                               <ns>.svc.<zone> svc.<zone> <zone> then the host's, ndots:5;
//                               a hostNetwork pod falls back to Default;
//   ClusterFirstWithHostNet     ClusterFirst, hostNetwork or not;
//   Default                     the host's resolv.conf (--resolv-conf) as it is;
//   None                        nothing but spec.dnsConfig.
// spec.dnsConfig is then merged in (nameservers and searches appended without duplicates, options
// overriding by name), and the result cut to the resolver's limits (3 nameservers, 32 search
// domains, none over 253 characters, 2048 characters of search line) with the kubelet's warning.
// No cluster DNS configured: ClusterFirst pods get Default and a MissingClusterDNS warning.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "node-agent/cri/cri_client.h"

namespace tailor::node::runtime {

inline constexpr std::size_t kMaxDnsNameservers = 3;
inline constexpr std::size_t kMaxDnsSearchPaths = 32;
inline constexpr std::size_t kMaxDnsSearchListChars = 2048;

// spec.dnsConfig.options[i]; value nullopt: the option has no value ("edns0").
struct PodDnsOption {
  std::string name{};
  std::optional<std::string> value{};
};

// spec.dnsConfig.
struct PodDnsConfig {
  std::vector<std::string> nameservers{};
  std::vector<std::string> searches{};
  std::vector<PodDnsOption> options{};
};

// The node's side: the kubelet's --cluster-dns, --cluster-domain and the host resolv.conf it
// reads (--resolv-conf); `host` nullopt when --resolv-conf is "" (DNS lookups effectively off).
struct NodeDns {
  std::vector<std::string> cluster_dns{};
  std::string cluster_domain{};
  std::optional<cri::DnsConfig> host = cri::DnsConfig{};
};

// What the pod asks for (spec.dnsPolicy, spec.hostNetwork, spec.dnsConfig).
struct PodDnsRequest {
  std::string ns{};
  std::string name{};  // name and uid: only for the MissingClusterDNS message
  std::string uid{};
  std::string dns_policy{};  // "" is ClusterFirst, as the API defaults it
  bool host_network = false;
  std::optional<PodDnsConfig> dns_config{};
};

// A warning the kubelet records as an event on the pod (reason DNSConfigForming or
// MissingClusterDNS), with its message.
struct DnsWarning {
  std::string reason{};
  std::string message{};
};

struct PodDns {
  cri::DnsConfig config{};
  std::vector<DnsWarning> warnings{};
};

// A resolv.conf's nameservers, search domains (the last `search` line; trailing dots dropped)
// and options (every `options` line, later ones overriding by name), as the kubelet parses it.
cri::DnsConfig parse_resolv_conf(std::string_view text);

// The pod's DNS config. Pure.
PodDns pod_dns(const PodDnsRequest& pod, const NodeDns& node);

}  // namespace tailor::node::runtime
