#include "cli/cluster_proxy.h"

#include <openssl/sha.h>

#include <algorithm>
#include <boost/json.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <tuple>

#include "cli/cluster_process.h"
#include "cli/cluster_watch.h"
#include "cli/command_flags.h"
#include "kube/client/config.h"

namespace tailor::cli {
namespace {
namespace bj = boost::json;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

constexpr const char* kMasqueradeMark = "0x4000/0x4000";

int int_at(const bj::object& parent, std::string_view key) {
  const bj::value* v = parent.if_contains(key);
  return v && v->is_int64() ? static_cast<int>(v->as_int64()) : 0;
}

std::optional<bool> bool_at(const bj::object& parent, std::string_view key) {
  const bj::value* v = parent.if_contains(key);
  if (!v || !v->is_bool()) return std::nullopt;
  return v->as_bool();
}

std::vector<ProxyServicePort> decode_ports(const bj::array& ports) {
  std::vector<ProxyServicePort> out;
  for (const bj::value& p : ports) {
    if (!p.is_object()) continue;
    const std::string protocol = string_at(p.as_object(), "protocol");
    out.push_back({.name = string_at(p.as_object(), "name"),
                   .protocol = protocol.empty() ? "TCP" : protocol,
                   .port = int_at(p.as_object(), "port")});
  }
  return out;
}

// kube-proxy's portProtoHash: base32 (RFC 4648) of the SHA-256 of `text`, its first 16 characters.
std::string chain_hash(const std::string& text) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(text.data()), text.size(), digest);
  static const char* kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  std::string out;
  std::uint32_t buffer = 0;
  int bits = 0;
  for (unsigned char byte : digest) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5 && out.size() < 16) {
      out += kAlphabet[(buffer >> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return out;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// "-p tcp -m tcp": the protocol and its match module, as iptables-save prints them.
std::string protocol_match(const std::string& protocol) {
  const std::string p = lower(protocol);
  return "-p " + p + " -m " + p;
}

std::string quoted(const std::string& comment) { return "\"" + comment + "\""; }

struct Backend {
  std::string ip;
  int port = 0;
  std::string text() const { return ip + ":" + std::to_string(port); }
  bool operator<(const Backend& o) const { return std::tie(ip, port) < std::tie(o.ip, o.port); }
};

// The endpoints of one service port: the ready ones of its slices, else those serving and
// terminating (kube-proxy's categorizeEndpoints for cluster traffic).
std::vector<Backend> backends(const ProxyService& service, const ProxyServicePort& port,
                              const std::vector<SliceView>& slices) {
  std::set<Backend> ready, terminating;
  for (const SliceView& slice : slices) {
    if (slice.ns != service.ns || slice.service != service.name) continue;
    if (slice.address_type != "IPv4") continue;
    for (const ProxyServicePort& p : slice.ports) {
      if (p.name != port.name || p.protocol != port.protocol || p.port <= 0) continue;
      for (const SliceEndpoint& e : slice.endpoints) {
        if (e.ip.empty()) continue;
        if (e.ready) ready.insert({e.ip, p.port});
        if (e.serving && e.terminating) terminating.insert({e.ip, p.port});
      }
    }
  }
  const std::set<Backend>& chosen = ready.empty() ? terminating : ready;
  return {chosen.begin(), chosen.end()};
}

}  // namespace

ProxyService decode_proxy_service(std::string_view json) {
  const bj::object root = parse_object(json);
  const bj::object& meta = object_at(root, "metadata");
  const bj::object& spec = object_at(root, "spec");
  return {.ns = string_at(meta, "namespace"),
          .name = string_at(meta, "name"),
          .cluster_ip = string_at(spec, "clusterIP"),
          .ports = decode_ports(array_at(spec, "ports"))};
}

SliceView decode_slice_view(std::string_view json) {
  const bj::object root = parse_object(json);
  const bj::object& meta = object_at(root, "metadata");
  SliceView out{.ns = string_at(meta, "namespace"),
                .service = string_at(object_at(meta, "labels"), "kubernetes.io/service-name"),
                .address_type = string_at(root, "addressType"),
                .ports = decode_ports(array_at(root, "ports"))};
  for (const bj::value& e : array_at(root, "endpoints")) {
    if (!e.is_object()) continue;
    const bj::object& conditions = object_at(e.as_object(), "conditions");
    // Upstream: an unknown ready is read as ready, an unknown serving as ready's value.
    const bool ready = bool_at(conditions, "ready").value_or(true);
    const bool serving = bool_at(conditions, "serving").value_or(ready);
    const bool terminating = bool_at(conditions, "terminating").value_or(false);
    const std::string hostname = string_at(e.as_object(), "hostname");
    for (const bj::value& address : array_at(e.as_object(), "addresses")) {
      if (!address.is_string()) continue;
      out.endpoints.push_back({.ip = std::string(address.as_string()),
                               .ready = ready,
                               .serving = serving,
                               .terminating = terminating,
                               .hostname = hostname});
    }
  }
  return out;
}

std::string proxy_chain_prefix(int slot) { return "TLR" + std::to_string(slot) + "-"; }

std::string service_proxy_rules(int slot, const std::vector<ProxyService>& services,
                                const std::vector<SliceView>& slices,
                                const std::set<std::string>& existing) {
  const std::string prefix = proxy_chain_prefix(slot);
  const std::string services_chain = prefix + "SERVICES";
  const std::string mark_chain = prefix + "MARK-MASQ";
  const std::string post_chain = prefix + "POSTROUTING";
  std::vector<std::string> nat_chains{services_chain, mark_chain, post_chain};
  std::string filter_rules, nat_rules;
  nat_rules += "-A " + post_chain + " -m mark ! --mark " + kMasqueradeMark + " -j RETURN\n";
  nat_rules += "-A " + post_chain + " -j MARK --xor-mark 0x4000\n";
  nat_rules += "-A " + post_chain +
               " -m comment --comment \"tailor service traffic requiring SNAT\" -j MASQUERADE\n";
  nat_rules += "-A " + mark_chain + " -j MARK --or-mark 0x4000\n";

  std::vector<ProxyService> sorted = services;
  std::sort(sorted.begin(), sorted.end(), [](const ProxyService& a, const ProxyService& b) {
    return std::tie(a.ns, a.name) < std::tie(b.ns, b.name);
  });
  std::string svc_rules, sep_rules;
  for (const ProxyService& service : sorted) {
    if (service.cluster_ip.empty() || service.cluster_ip == "None") continue;
    for (const ProxyServicePort& port : service.ports) {
      if (port.port <= 0) continue;
      const std::string port_name =
          service.ns + "/" + service.name + (port.name.empty() ? "" : ":" + port.name);
      const std::string destination = "-d " + service.cluster_ip + "/32 " +
                                      protocol_match(port.protocol) + " --dport " +
                                      std::to_string(port.port);
      const std::vector<Backend> endpoints = backends(service, port, slices);
      if (endpoints.empty()) {
        filter_rules += "-A " + services_chain + " -m comment --comment " +
                        quoted(port_name + " has no endpoints") + " " + destination +
                        " -j REJECT --reject-with icmp-port-unreachable\n";
        continue;
      }
      const std::string svc_chain = prefix + "SVC-" + chain_hash(port_name + lower(port.protocol));
      nat_chains.push_back(svc_chain);
      nat_rules += "-A " + services_chain + " -m comment --comment " +
                   quoted(port_name + " cluster IP") + " " + destination + " -j " + svc_chain +
                   "\n";
      svc_rules += "-A " + svc_chain + " -m comment --comment " +
                   quoted(port_name + " cluster IP") + " ! -s " + kPodNetworks + " " + destination +
                   " -j " + mark_chain + "\n";
      const std::size_t n = endpoints.size();
      for (std::size_t i = 0; i < n; ++i) {
        const Backend& backend = endpoints[i];
        const std::string sep_chain =
            prefix + "SEP-" + chain_hash(port_name + lower(port.protocol) + backend.text());
        nat_chains.push_back(sep_chain);
        svc_rules += "-A " + svc_chain + " -m comment --comment " +
                     quoted(port_name + " -> " + backend.text());
        if (i + 1 < n) {
          char probability[32];
          std::snprintf(probability, sizeof probability, "%0.10f", 1.0 / double(n - i));
          svc_rules += std::string(" -m statistic --mode random --probability ") + probability;
        }
        svc_rules += " -j " + sep_chain + "\n";
        sep_rules += "-A " + sep_chain + " -m comment --comment " + quoted(port_name) + " -s " +
                     backend.ip + "/32 -j " + mark_chain + "\n";
        sep_rules += "-A " + sep_chain + " -m comment --comment " + quoted(port_name) + " " +
                     protocol_match(port.protocol) + " -j DNAT --to-destination " + backend.text() +
                     "\n";
      }
    }
  }
  std::string out = "*filter\n:" + services_chain + " - [0:0]\n" + filter_rules + "COMMIT\n";
  out += "*nat\n";
  for (const std::string& chain : nat_chains) out += ":" + chain + " - [0:0]\n";
  out += nat_rules + svc_rules + sep_rules;
  // Chains of Services or endpoints that are gone: emptied first (the rules above no longer
  // jump to them), then deleted.
  const std::set<std::string> kept(nat_chains.begin(), nat_chains.end());
  std::vector<std::string> stale;
  for (const std::string& chain : existing) {
    if (chain.rfind(prefix, 0) == 0 && !kept.count(chain)) stale.push_back(chain);
  }
  for (const std::string& chain : stale) out += ":" + chain + " - [0:0]\n";
  for (const std::string& chain : stale) out += "-X " + chain + "\n";
  return out + "COMMIT\n";
}

std::vector<ProxyJump> service_proxy_jumps(int slot) {
  const std::string prefix = proxy_chain_prefix(slot);
  const std::string env = "tailor environment " + std::to_string(slot);
  auto jump = [](std::string table, std::string chain, std::string comment, std::string target,
                 bool new_only) {
    ProxyJump j{.table = std::move(table), .chain = std::move(chain)};
    if (new_only) j.rule = {"-m", "conntrack", "--ctstate", "NEW"};
    for (const char* word : {"-m", "comment", "--comment"}) j.rule.push_back(word);
    j.rule.push_back(std::move(comment));
    j.rule.push_back("-j");
    j.rule.push_back(std::move(target));
    return j;
  };
  return {jump("nat", "PREROUTING", env + " service portals", prefix + "SERVICES", false),
          jump("nat", "OUTPUT", env + " service portals", prefix + "SERVICES", false),
          jump("nat", "POSTROUTING", env + " postrouting rules", prefix + "POSTROUTING", false),
          jump("filter", "FORWARD", env + " service portals", prefix + "SERVICES", true),
          jump("filter", "OUTPUT", env + " service portals", prefix + "SERVICES", true)};
}

std::set<std::string> saved_chains(std::string_view saved, std::string_view prefix) {
  std::set<std::string> out;
  std::size_t start = 0;
  while (start < saved.size()) {
    std::size_t end = saved.find('\n', start);
    if (end == std::string_view::npos) end = saved.size();
    const std::string_view line = saved.substr(start, end - start);
    if (line.size() > 1 && line[0] == ':' && line.substr(1, prefix.size()) == prefix) {
      out.insert(std::string(line.substr(1, line.find(' ') - 1)));
    }
    start = end + 1;
  }
  return out;
}

std::string service_proxy_removal(int slot, const std::set<std::string>& nat_chains) {
  const std::string services_chain = proxy_chain_prefix(slot) + "SERVICES";
  std::string out = "*filter\n:" + services_chain + " - [0:0]\n-X " + services_chain + "\nCOMMIT\n";
  out += "*nat\n";
  for (const std::string& chain : nat_chains) out += ":" + chain + " - [0:0]\n";
  for (const std::string& chain : nat_chains) out += "-X " + chain + "\n";
  return out + "COMMIT\n";
}

namespace {

std::vector<std::string> iptables(const ProxyJump& j, const char* op) {
  std::vector<std::string> argv{"iptables", "-w", "-t", j.table, op, j.chain};
  argv.insert(argv.end(), j.rule.begin(), j.rule.end());
  return argv;
}

bool succeeds(const std::vector<std::string>& argv) {
  try {
    run_command(argv);
    return true;
  } catch (const std::runtime_error&) {
    return false;
  }
}

// iptables-restore reads a file: the text is kept there (DIR/rules, what was applied last).
void restore(const fs::path& file, const std::string& text) {
  {
    std::ofstream out(file);
    out << text;
    if (!out.flush()) throw std::runtime_error("cannot write " + file.string());
  }
  run_command({"iptables-restore", "-w", "--noflush", file.string()});
}

// Pods of one bridge reach each other's Services only when bridged traffic passes through
// iptables (the reply of a pod to a pod of its own bridge is switched, not routed, and must be
// un-DNATed): kube-proxy needs br_netfilter and bridge-nf-call-iptables = 1, and so does this.
void ensure_bridge_netfilter(std::ostream& err) {
  const fs::path knob = "/proc/sys/net/bridge/bridge-nf-call-iptables";
  if (!fs::exists(knob)) {
    try {
      run_command({"modprobe", "br_netfilter"});
    } catch (const std::exception& e) {
      err << "tailor cluster-proxy: br_netfilter is not loaded and modprobe failed (" << e.what()
          << "): a pod reaching a Service whose endpoint shares its node gets no answer\n";
      return;
    }
  }
  std::ifstream in(knob);
  int value = 0;
  if (in >> value && value == 1) return;
  std::ofstream(knob) << "1\n";
}

std::set<std::string> environment_nat_chains(int slot) {
  return saved_chains(run_command({"iptables-save", "-t", "nat"}), proxy_chain_prefix(slot));
}

}  // namespace

void remove_service_proxy(int slot) {
  for (const ProxyJump& j : service_proxy_jumps(slot)) {
    while (succeeds(iptables(j, "-C"))) run_command(iptables(j, "-D"));
  }
  const std::set<std::string> nat = environment_nat_chains(slot);
  const std::set<std::string> filter =
      saved_chains(run_command({"iptables-save", "-t", "filter"}), proxy_chain_prefix(slot));
  if (nat.empty() && filter.empty()) return;
  const fs::path file =
      fs::temp_directory_path() / ("tailor-proxy-removal-" + std::to_string(slot) + ".rules");
  restore(file, service_proxy_removal(slot, nat));
  fs::remove(file);
}

int run_cluster_proxy(const std::vector<std::string>& args, std::ostream& err) {
  std::string kubeconfig, dir;
  int slot = -1;
  try {
    FlagReader flags(args);
    while (flags.next()) {
      const std::string& flag = flags.flag();
      if (flag == "--kubeconfig") {
        kubeconfig = flags.value();
      } else if (flag == "--dir") {
        dir = flags.value();
      } else if (flag == "--slot") {
        slot = std::stoi(flags.value());
      } else {
        throw std::invalid_argument("unknown flag " + flag);
      }
    }
    if (kubeconfig.empty() || dir.empty() || slot < 0) {
      throw std::invalid_argument("--kubeconfig, --slot and --dir are required");
    }
  } catch (const std::exception& e) {
    err << "tailor cluster-proxy: " << e.what() << "\n";
    return 2;
  }
  try {
    fs::create_directories(dir);
    ensure_bridge_netfilter(err);
    kube::RestClient client(kube::load_kubeconfig(kubeconfig));
    std::optional<std::string> applied;
    watch_pair<ProxyService, SliceView>(
        client, {"", "v1", "services"}, decode_proxy_service,
        {"discovery.k8s.io", "v1", "endpointslices"}, decode_slice_view, 100ms,
        [] { return std::string(); },  // until stopped
        [&](const std::vector<ProxyService>& services, const std::vector<SliceView>& slices) {
          // Compared without the stale chains' deletions: those depend on what is there.
          const std::string wanted = service_proxy_rules(slot, services, slices, {});
          if (wanted == applied) return;
          restore(fs::path(dir) / "rules",
                  service_proxy_rules(slot, services, slices, environment_nat_chains(slot)));
          for (const ProxyJump& j : service_proxy_jumps(slot)) {
            if (!succeeds(iptables(j, "-C"))) run_command(iptables(j, "-I"));
          }
          applied = wanted;
        });
    return 0;
  } catch (const std::exception& e) {
    err << "tailor cluster-proxy: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace tailor::cli
