#include "node-agent/runtime/pod_dns.h"

#include <algorithm>
#include <sstream>

namespace tailor::node::runtime {
namespace {

constexpr std::size_t kDns1123SubdomainMaxLength = 253;

std::vector<std::string> omit_duplicates(const std::vector<std::string>& in) {
  std::vector<std::string> out;
  for (const auto& s : in) {
    if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
  }
  return out;
}

std::string join(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : " ") + p;
  return out;
}

std::string option_name(const std::string& option) { return option.substr(0, option.find(':')); }

// mergeDNSOptions: a later option of the same name replaces the earlier one (in its place, so
// the order stays that of first appearance; the kubelet's map leaves it unspecified).
void merge_option(std::vector<std::string>& options, const std::string& option) {
  const auto same = std::find_if(options.begin(), options.end(), [&](const std::string& o) {
    return option_name(o) == option_name(option);
  });
  if (same == options.end()) {
    options.push_back(option);
  } else {
    *same = option;
  }
}

std::vector<std::string> fit_nameservers(std::vector<std::string> servers,
                                         std::vector<DnsWarning>& warnings) {
  if (servers.size() <= kMaxDnsNameservers) return servers;
  servers.resize(kMaxDnsNameservers);
  warnings.push_back({"DNSConfigForming",
                      "Nameserver limits were exceeded, some nameservers have been omitted, the "
                      "applied nameserver line is: " +
                          join(servers)});
  return servers;
}

std::vector<std::string> fit_searches(std::vector<std::string> searches,
                                      std::vector<DnsWarning>& warnings) {
  bool exceeded = false;
  if (searches.size() > kMaxDnsSearchPaths) {
    searches.resize(kMaxDnsSearchPaths);
    exceeded = true;
  }
  // glibc 2.28 aborts on a search domain over 255 characters: they are left out.
  const auto too_long = std::remove_if(searches.begin(), searches.end(), [](const std::string& s) {
    return s.size() > kDns1123SubdomainMaxLength;
  });
  if (too_long != searches.end()) {
    searches.erase(too_long, searches.end());
    exceeded = true;
  }
  if (const std::size_t line = join(searches).size(); line > kMaxDnsSearchListChars) {
    std::size_t cut = 0;
    std::size_t cut_chars = 0;
    for (std::size_t i = searches.size(); i-- > 0;) {
      cut_chars += searches[i].size() + 1;
      ++cut;
      if (line - cut_chars <= kMaxDnsSearchListChars) break;
    }
    searches.resize(searches.size() - cut);
    exceeded = true;
  }
  if (exceeded) {
    warnings.push_back({"DNSConfigForming",
                        "Search Line limits were exceeded, some search paths have been omitted, "
                        "the applied search line is: " +
                            join(searches)});
  }
  return searches;
}

enum class DnsType { None, Cluster, Host };

DnsType dns_type(const PodDnsRequest& pod) {
  if (pod.dns_policy == "None") return DnsType::None;
  if (pod.dns_policy == "Default") return DnsType::Host;
  if (pod.dns_policy == "ClusterFirst" || pod.dns_policy.empty()) {
    return pod.host_network ? DnsType::Host : DnsType::Cluster;
  }
  // ClusterFirstWithHostNet; an unknown policy (the API server refuses those) is ClusterFirst,
  // as the kubelet falls back.
  return DnsType::Cluster;
}

}  // namespace

cri::DnsConfig parse_resolv_conf(std::string_view text) {
  cri::DnsConfig out;
  std::istringstream lines{std::string(text)};
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::vector<std::string> fields;
    for (std::string w; words >> w;) fields.push_back(w);
    if (fields.empty() || fields[0].front() == '#') continue;
    if (fields[0] == "nameserver" && fields.size() >= 2) {
      out.servers.push_back(fields[1]);
    } else if (fields[0] == "search") {
      out.searches.clear();
      for (std::size_t i = 1; i < fields.size(); ++i) {
        if (fields[i] == ".") continue;
        std::string domain = fields[i];
        if (domain.back() == '.') domain.pop_back();
        out.searches.push_back(domain);
      }
    } else if (fields[0] == "options") {
      for (std::size_t i = 1; i < fields.size(); ++i) merge_option(out.options, fields[i]);
    }
  }
  return out;
}

PodDns pod_dns(const PodDnsRequest& pod, const NodeDns& node) {
  PodDns out;
  cri::DnsConfig& dns = out.config;
  DnsType type = dns_type(pod);
  if (type == DnsType::Cluster && node.cluster_dns.empty()) {
    const std::string message =
        "kubelet does not have ClusterDNS IP configured and cannot create Pod using "
        "\"ClusterFirst\" policy. Falling back to \"Default\" policy.";
    // format.Pod: name_namespace(uid).
    out.warnings.push_back({"MissingClusterDNS", "pod: \"" + pod.name + "_" + pod.ns + "(" +
                                                     pod.uid + ")\". " + message});
    type = DnsType::Host;
  }
  switch (type) {
    case DnsType::None:
      break;
    case DnsType::Cluster: {
      dns.servers = node.cluster_dns;
      std::vector<std::string> searches;
      if (!node.cluster_domain.empty()) {
        searches = {pod.ns + ".svc." + node.cluster_domain, "svc." + node.cluster_domain,
                    node.cluster_domain};
      }
      if (node.host) {
        searches.insert(searches.end(), node.host->searches.begin(), node.host->searches.end());
      }
      dns.searches = omit_duplicates(searches);
      dns.options = {"ndots:5"};
      break;
    }
    case DnsType::Host:
      if (node.host) {
        dns = *node.host;
      } else {
        // --resolv-conf="": the resolver's "nameserver on the local machine", no search.
        dns.servers = {"127.0.0.1"};
        dns.searches = {"."};
      }
      break;
  }
  if (pod.dns_config) {
    const PodDnsConfig& extra = *pod.dns_config;
    dns.servers.insert(dns.servers.end(), extra.nameservers.begin(), extra.nameservers.end());
    dns.servers = omit_duplicates(dns.servers);
    dns.searches.insert(dns.searches.end(), extra.searches.begin(), extra.searches.end());
    dns.searches = omit_duplicates(dns.searches);
    for (const PodDnsOption& option : extra.options) {
      merge_option(dns.options, option.value && !option.value->empty()
                                    ? option.name + ":" + *option.value
                                    : option.name);
    }
  }
  dns.servers = fit_nameservers(std::move(dns.servers), out.warnings);
  dns.searches = fit_searches(std::move(dns.searches), out.warnings);
  return out;
}

}  // namespace tailor::node::runtime
