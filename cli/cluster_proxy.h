// The service proxy of `tailor cluster up`, what kube-proxy's iptables mode does on a kubelet's
// node: a Service's ClusterIP and port lead to one of its ready endpoints, chosen at random per
// connection, by NAT rules built from the Services and EndpointSlices.
//
// The rules are kube-proxy's, renamed per environment (several run on one machine): chains
// TLR<slot>-SERVICES (nat: ClusterIP:port -> the service port's chain; filter: REJECT a port
// without endpoints), TLR<slot>-SVC-<hash> (one per service port: sources outside the machine's
// pod network marked for masquerade, then `-m statistic --mode random --probability 1/(n-i)` over
// the endpoints), TLR<slot>-SEP-<hash> (one per endpoint: the endpoint itself marked for
// masquerade, the hairpin case, then DNAT), TLR<slot>-MARK-MASQ and TLR<slot>-POSTROUTING
// (MASQUERADE what was marked, mark 0x4000 as kube-proxy's). `<slot>` is the slot of the
// environment's first node (cli/cluster_network.h), which no other environment holds; hashes are
// kube-proxy's (base32 of SHA-256 of "ns/name:port" + protocol in lower case [+ endpoint], 16
// characters: default/kubernetes:https is TLR<slot>-SVC-NPX46M4PTMTKRN6Y).
// Endpoints are the slices' ready ones; with none ready, those serving and terminating
// (kube-proxy's fallback since 1.26). The built-in chains jump to the environment's own (PREROUTING
// and OUTPUT of nat to SERVICES, POSTROUTING to POSTROUTING, FORWARD and OUTPUT of filter to
// SERVICES for new connections), each rule ensured once with -C/-I as kube-proxy does; everything
// is written with `iptables-restore --noflush`, so only the environment's own chains are touched
// (whichever backend Debian's iptables uses, nft or legacy), and removed with the environment.
// Bridged traffic must pass through iptables (br_netfilter, bridge-nf-call-iptables = 1, as
// kube-proxy requires): the proxy loads and sets it when it is not.
// Not done: NodePort, LoadBalancer, externalIPs, session affinity, traffic policies, IPv6.
#pragma once

#include <iosfwd>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace tailor::cli {

// The pod networks of every environment on the machine (cli/cluster_network.h): traffic from
// elsewhere (the host, hostNetwork pods) to a ClusterIP is masqueraded, as kube-proxy does with
// its --cluster-cidr.
inline constexpr const char* kPodNetworks = "10.200.0.0/16";

struct ProxyServicePort {
  std::string name{};
  std::string protocol = "TCP";
  int port = 0;
};

// What the proxy needs of a Service: its ClusterIP ("" or "None": nothing to proxy) and ports.
struct ProxyService {
  std::string ns{}, name{}, cluster_ip{};
  std::vector<ProxyServicePort> ports{};
};

struct SliceEndpoint {
  std::string ip{};
  bool ready = true;  // conditions: an absent one is read as upstream's consumers read it
  bool serving = true;
  bool terminating = false;
  std::string hostname{};  // a headless Service's record for it (the cluster DNS)
};

// What the proxy and the cluster DNS need of an EndpointSlice: its Service (label
// kubernetes.io/service-name), its IPv4 endpoints and ports (a port's name matches the service
// port's).
struct SliceView {
  std::string ns{}, service{}, address_type = "IPv4";
  std::vector<SliceEndpoint> endpoints{};
  std::vector<ProxyServicePort> ports{};
};

// From one object's JSON (the informers' decoders); throw on malformed input.
ProxyService decode_proxy_service(std::string_view json);
SliceView decode_slice_view(std::string_view json);

// "TLR<slot>-": the environment's chains begin with it.
std::string proxy_chain_prefix(int slot);

// The iptables-restore input (tables filter and nat, for --noflush) that makes the environment's
// chains what the Services and slices ask for, and deletes `existing` chains of the environment
// no longer used. Pure.
std::string service_proxy_rules(int slot, const std::vector<ProxyService>& services,
                                const std::vector<SliceView>& slices,
                                const std::set<std::string>& existing);

// A rule of a built-in chain that leads to the environment's chains.
struct ProxyJump {
  std::string table{}, chain{};
  std::vector<std::string> rule{};  // iptables arguments after the chain
};
std::vector<ProxyJump> service_proxy_jumps(int slot);  // Pure.

// The chains of `iptables-save` output (":NAME POLICY [p:b]" lines) that begin with `prefix`.
// Pure.
std::set<std::string> saved_chains(std::string_view saved, std::string_view prefix);

// The iptables-restore input that flushes and deletes `chains` of the environment's (filter's
// SERVICES and every nat chain). Pure.
std::string service_proxy_removal(int slot, const std::set<std::string>& nat_chains);

// Removes the environment's jumps and chains from the machine (`tailor cluster down`); a slot
// without any is left as it is. Throws when iptables fails otherwise.
void remove_service_proxy(int slot);

// `tailor cluster-proxy --kubeconfig FILE --slot N --dir DIR`: keeps the environment's rules in
// step with the Services and EndpointSlices (watches; rebuilt when something changed, at most every
// 100 ms, applied only when the text differs; DIR/rules holds the last applied) until it is
// stopped. The rules stay when it stops; remove_service_proxy removes them.
int run_cluster_proxy(const std::vector<std::string>& args, std::ostream& err);

}  // namespace tailor::cli
