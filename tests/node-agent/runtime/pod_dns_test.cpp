// A pod's DNS config as the kubelet forms it (pkg/kubelet/network/dns): each policy, dnsConfig
// merged in, the resolver's limits with the kubelet's warnings, and the host resolv.conf parsed.
#include "node-agent/runtime/pod_dns.h"

#include <gtest/gtest.h>

#include "node-agent/runtime/cri_specs.h"
#include "node-agent/runtime/pod_runtime.h"

namespace tailor::node::runtime {
namespace {

using Strings = std::vector<std::string>;

const cri::DnsConfig kHost{
    .servers = {"10.255.255.53"}, .searches = {"corp.example"}, .options = {"edns0", "ndots:1"}};
const NodeDns kNode{
    .cluster_dns = {"10.200.0.1"}, .cluster_domain = "cluster.local", .host = kHost};

struct PolicyCase {
  const char* name;
  std::string policy;
  bool host_network;
  cri::DnsConfig want;
};

TEST(PodDns, EachPolicyAsTheKubeletFormsIt) {
  const cri::DnsConfig cluster{
      .servers = {"10.200.0.1"},
      .searches = {"team.svc.cluster.local", "svc.cluster.local", "cluster.local", "corp.example"},
      .options = {"ndots:5"}};
  const PolicyCase cases[] = {
      {"ClusterFirst", "ClusterFirst", false, cluster},
      {"the API's default, ClusterFirst", "", false, cluster},
      {"ClusterFirst on the host network is Default", "ClusterFirst", true, kHost},
      {"ClusterFirstWithHostNet", "ClusterFirstWithHostNet", true, cluster},
      {"ClusterFirstWithHostNet off the host network", "ClusterFirstWithHostNet", false, cluster},
      {"Default", "Default", false, kHost},
      {"None without dnsConfig: empty", "None", false, {}},
      {"an unknown policy falls back to ClusterFirst", "Bogus", false, cluster},
  };
  for (const auto& c : cases) {
    const PodDns dns =
        pod_dns({.ns = "team", .dns_policy = c.policy, .host_network = c.host_network}, kNode);
    EXPECT_EQ(dns.config, c.want) << c.name;
    EXPECT_TRUE(dns.warnings.empty()) << c.name;
  }
}

TEST(PodDns, NoClusterDnsFallsBackToDefaultWithTheKubeletsWarning) {
  NodeDns node = kNode;
  node.cluster_dns.clear();
  const PodDns dns = pod_dns({.ns = "team", .name = "web", .uid = "u1"}, node);
  EXPECT_EQ(dns.config, kHost);
  ASSERT_EQ(dns.warnings.size(), 1u);
  EXPECT_EQ(dns.warnings[0].reason, "MissingClusterDNS");
  EXPECT_EQ(dns.warnings[0].message,
            "pod: \"web_team(u1)\". kubelet does not have ClusterDNS IP configured and cannot "
            "create Pod using \"ClusterFirst\" policy. Falling back to \"Default\" policy.");
}

TEST(PodDns, NoClusterDomainLeavesTheHostsSearchesAlone) {
  NodeDns node = kNode;
  node.cluster_domain.clear();
  EXPECT_EQ(pod_dns({.ns = "team"}, node).config.searches, Strings{"corp.example"});
}

TEST(PodDns, AnEmptyResolvConfFlagMeansTheLocalMachinesNameserverAndNoSearch) {
  NodeDns node = kNode;
  node.host.reset();
  const cri::DnsConfig want{.servers = {"127.0.0.1"}, .searches = {"."}};
  EXPECT_EQ(pod_dns({.ns = "team", .dns_policy = "Default"}, node).config, want);
  // ClusterFirst: the cluster's searches only.
  EXPECT_EQ(pod_dns({.ns = "team"}, node).config.searches,
            (Strings{"team.svc.cluster.local", "svc.cluster.local", "cluster.local"}));
}

TEST(PodDns, DnsConfigIsMergedWithoutDuplicatesOptionsOverridingByName) {
  const PodDnsConfig extra{.nameservers = {"10.200.0.1", "192.0.2.9"},
                           .searches = {"cluster.local", "extra.example"},
                           .options = {{"ndots", "2"}, {"edns0", std::nullopt}, {"timeout", ""}}};
  const PodDns dns = pod_dns({.ns = "team", .dns_config = extra}, kNode);
  EXPECT_EQ(dns.config.servers, (Strings{"10.200.0.1", "192.0.2.9"}));
  EXPECT_EQ(dns.config.searches, (Strings{"team.svc.cluster.local", "svc.cluster.local",
                                          "cluster.local", "corp.example", "extra.example"}));
  EXPECT_EQ(dns.config.options, (Strings{"ndots:2", "edns0", "timeout"}));
  EXPECT_TRUE(dns.warnings.empty());
}

TEST(PodDns, NoneTakesOnlyDnsConfig) {
  const PodDnsConfig extra{
      .nameservers = {"192.0.2.1"}, .searches = {"a.example"}, .options = {{"ndots", "1"}}};
  const cri::DnsConfig want{
      .servers = {"192.0.2.1"}, .searches = {"a.example"}, .options = {"ndots:1"}};
  EXPECT_EQ(pod_dns({.ns = "team", .dns_policy = "None", .dns_config = extra}, kNode).config, want);
}

TEST(PodDns, MoreThanThreeNameserversAreCutWithTheKubeletsWarning) {
  const PodDnsConfig extra{.nameservers = {"192.0.2.1", "192.0.2.2", "192.0.2.3"}};
  const PodDns dns = pod_dns({.ns = "team", .dns_config = extra}, kNode);
  EXPECT_EQ(dns.config.servers, (Strings{"10.200.0.1", "192.0.2.1", "192.0.2.2"}));
  ASSERT_EQ(dns.warnings.size(), 1u);
  EXPECT_EQ(dns.warnings[0].reason, "DNSConfigForming");
  EXPECT_EQ(dns.warnings[0].message,
            "Nameserver limits were exceeded, some nameservers have been omitted, the applied "
            "nameserver line is: 10.200.0.1 192.0.2.1 192.0.2.2");
}

TEST(PodDns, SearchLimitsCutPathsCountLongOnesAndTheLineLength) {
  struct Case {
    const char* name;
    Strings searches;
    std::size_t want_count;
  };
  Strings forty;
  for (int i = 0; i < 40; ++i) forty.push_back("d" + std::to_string(i) + ".example");
  const std::string long_domain(254, 'a');
  Strings wide;  // 9 domains of 250 characters: 2258 with spaces, 8 fit in 2048
  for (char c = 'a'; c < 'a' + 9; ++c) wide.push_back(std::string(250, c));
  const Case cases[] = {
      {"32 paths at most", forty, 32},
      {"a domain over 253 characters is left out", {"ok.example", long_domain}, 1},
      {"the line is cut from its end to 2048 characters", wide, 8},
  };
  for (const auto& c : cases) {
    const PodDns dns =
        pod_dns({.dns_policy = "None", .dns_config = PodDnsConfig{.searches = c.searches}}, kNode);
    EXPECT_EQ(dns.config.searches.size(), c.want_count) << c.name;
    ASSERT_EQ(dns.warnings.size(), 1u) << c.name;
    EXPECT_EQ(dns.warnings[0].reason, "DNSConfigForming");
    EXPECT_EQ(dns.warnings[0].message.rfind("Search Line limits were exceeded, some search paths "
                                            "have been omitted, the applied search line is: ",
                                            0),
              0u)
        << dns.warnings[0].message;
  }
}

TEST(ResolvConf, ParsedAsTheKubeletParsesIt) {
  const cri::DnsConfig parsed = parse_resolv_conf(
      "# generated\n"
      "nameserver 10.0.0.1\n"
      "search old.example\n"
      "  nameserver 10.0.0.2  \n"
      "search a.example. . b.example\n"
      "options ndots:2 edns0\n"
      "options ndots:3\n"
      "nameserver\n"
      "domain ignored.example\n");
  EXPECT_EQ(parsed.servers, (Strings{"10.0.0.1", "10.0.0.2"}));
  EXPECT_EQ(parsed.searches, (Strings{"a.example", "b.example"})) << "the last search line wins";
  EXPECT_EQ(parsed.options, (Strings{"ndots:3", "edns0"}));
}

TEST(SandboxDns, TheSandboxCarriesThePodsDnsConfig) {
  RuntimePod pod;
  pod.pod.metadata.namespace_ = "team";
  pod.pod.metadata.name = "web";
  pod.pod.metadata.uid = "0000-1111";
  PodRuntimeOptions options;
  options.dns = kNode;
  const auto spec = sandbox_spec(pod, options);
  ASSERT_TRUE(spec.dns);
  EXPECT_EQ(spec.dns->servers, Strings{"10.200.0.1"});
  EXPECT_EQ(spec.dns->searches.front(), "team.svc.cluster.local");
}

TEST(SandboxDns, DnsPolicyAndConfigAreDecodedFromThePod) {
  const PodRunSpec run = decode_pod_run_spec(R"({"spec":{"containers":[],
      "dnsPolicy":"None","dnsConfig":{"nameservers":["192.0.2.1"],"searches":["s.example"],
      "options":[{"name":"ndots","value":"1"},{"name":"edns0"}]}}})");
  EXPECT_EQ(run.dns_policy, "None");
  ASSERT_TRUE(run.dns_config);
  EXPECT_EQ(run.dns_config->nameservers, Strings{"192.0.2.1"});
  EXPECT_EQ(run.dns_config->searches, Strings{"s.example"});
  ASSERT_EQ(run.dns_config->options.size(), 2u);
  EXPECT_EQ(run.dns_config->options[0].value, "1");
  EXPECT_FALSE(run.dns_config->options[1].value);
  EXPECT_FALSE(decode_pod_run_spec(R"({"spec":{"containers":[]}})").dns_config);
}

}  // namespace
}  // namespace tailor::node::runtime
