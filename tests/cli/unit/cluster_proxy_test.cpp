// The service proxy's rules as kube-proxy's iptables mode writes them, per environment: one table
// of Services and EndpointSlices to the exact iptables-restore text, the decoders, the jumps from
// the built-in chains, reading chains back from iptables-save and the removal text.
#include "cli/cluster_proxy.h"

#include <gtest/gtest.h>

namespace tailor::cli {
namespace {

SliceView slice(const std::string& service, std::vector<SliceEndpoint> endpoints,
                std::vector<ProxyServicePort> ports) {
  return {.ns = "shop",
          .service = service,
          .endpoints = std::move(endpoints),
          .ports = std::move(ports)};
}

const ProxyService kWeb{.ns = "shop",
                        .name = "web",
                        .cluster_ip = "10.201.3.20",
                        .ports = {{.name = "http", .port = 80}}};

struct Case {
  std::string name;
  std::vector<ProxyService> services;
  std::vector<SliceView> slices;
  std::set<std::string> existing;
  std::string want;
};

const std::string kFilterEmpty = "*filter\n:TLR3-SERVICES - [0:0]\nCOMMIT\n";
const std::string kNatHead =
    "*nat\n:TLR3-SERVICES - [0:0]\n:TLR3-MARK-MASQ - [0:0]\n:TLR3-POSTROUTING - [0:0]\n";
const std::string kNatFixed =
    "-A TLR3-POSTROUTING -m mark ! --mark 0x4000/0x4000 -j RETURN\n"
    "-A TLR3-POSTROUTING -j MARK --xor-mark 0x4000\n"
    "-A TLR3-POSTROUTING -m comment --comment \"tailor service traffic requiring SNAT\" -j "
    "MASQUERADE\n"
    "-A TLR3-MARK-MASQ -j MARK --or-mark 0x4000\n";

class ServiceProxyRules : public testing::TestWithParam<Case> {};

TEST_P(ServiceProxyRules, AreKubeProxysPerEnvironment) {
  const Case& c = GetParam();
  EXPECT_EQ(service_proxy_rules(3, c.services, c.slices, c.existing), c.want);
}

// The chain names below are kube-proxy's hashes (base32 of SHA-256, 16 characters) of
// "shop/web:http" + "tcp" [+ "IP:port"].
INSTANTIATE_TEST_SUITE_P(
    Table, ServiceProxyRules,
    testing::Values(
        Case{"NoServices", {}, {}, {}, kFilterEmpty + kNatHead + kNatFixed + "COMMIT\n"},
        Case{"NoEndpointsRejects",
             {kWeb},
             {slice("web", {{.ip = "10.200.3.5", .ready = false, .serving = false}},
                    {{.name = "http", .port = 8080}})},
             {},
             "*filter\n:TLR3-SERVICES - [0:0]\n"
             "-A TLR3-SERVICES -m comment --comment \"shop/web:http has no endpoints\" -d "
             "10.201.3.20/32 -p tcp -m tcp --dport 80 -j REJECT --reject-with "
             "icmp-port-unreachable\nCOMMIT\n" +
                 kNatHead + kNatFixed + "COMMIT\n"},
        Case{"TwoReadyEndpointsHalfEachHairpinMasqueraded",
             {kWeb},
             {slice("web",
                    {{.ip = "10.200.4.7"},
                     {.ip = "10.200.3.5"},
                     {.ip = "10.200.3.9", .ready = false, .serving = false}},
                    {{.name = "http", .port = 8080}}),
              slice("other", {{.ip = "10.200.3.6"}}, {{.name = "http", .port = 9090}})},
             {},
             kFilterEmpty + kNatHead +
                 ":TLR3-SVC-67NZLRHBNDSAWJRO - [0:0]\n"
                 ":TLR3-SEP-WLKT2AYFHQJSE77D - [0:0]\n"
                 ":TLR3-SEP-75O6YTJVJEJHVCQZ - [0:0]\n" +
                 kNatFixed +
                 "-A TLR3-SERVICES -m comment --comment \"shop/web:http cluster IP\" -d "
                 "10.201.3.20/32 -p tcp -m tcp --dport 80 -j TLR3-SVC-67NZLRHBNDSAWJRO\n"
                 "-A TLR3-SVC-67NZLRHBNDSAWJRO -m comment --comment \"shop/web:http cluster "
                 "IP\" ! -s 10.200.0.0/16 -d 10.201.3.20/32 -p tcp -m tcp --dport 80 -j "
                 "TLR3-MARK-MASQ\n"
                 "-A TLR3-SVC-67NZLRHBNDSAWJRO -m comment --comment \"shop/web:http -> "
                 "10.200.3.5:8080\" -m statistic --mode random --probability 0.5000000000 -j "
                 "TLR3-SEP-WLKT2AYFHQJSE77D\n"
                 "-A TLR3-SVC-67NZLRHBNDSAWJRO -m comment --comment \"shop/web:http -> "
                 "10.200.4.7:8080\" -j TLR3-SEP-75O6YTJVJEJHVCQZ\n"
                 "-A TLR3-SEP-WLKT2AYFHQJSE77D -m comment --comment \"shop/web:http\" -s "
                 "10.200.3.5/32 -j TLR3-MARK-MASQ\n"
                 "-A TLR3-SEP-WLKT2AYFHQJSE77D -m comment --comment \"shop/web:http\" -p tcp -m "
                 "tcp -j DNAT --to-destination 10.200.3.5:8080\n"
                 "-A TLR3-SEP-75O6YTJVJEJHVCQZ -m comment --comment \"shop/web:http\" -s "
                 "10.200.4.7/32 -j TLR3-MARK-MASQ\n"
                 "-A TLR3-SEP-75O6YTJVJEJHVCQZ -m comment --comment \"shop/web:http\" -p tcp -m "
                 "tcp -j DNAT --to-destination 10.200.4.7:8080\n"
                 "COMMIT\n"},
        Case{"OnlyTerminatingServingOnesWhenNoneIsReadyAndStaleChainsGo",
             {kWeb},
             {slice("web",
                    {{.ip = "10.200.3.5", .ready = false, .serving = true, .terminating = true},
                     {.ip = "10.200.3.9", .ready = false, .serving = false, .terminating = true}},
                    {{.name = "http", .port = 8080}, {.name = "metrics", .port = 9100}})},
             {"TLR3-SEP-WLKT2AYFHQJSE77D", "TLR3-SEP-OLDOLDOLDOLDOLDO", "TLR3-SERVICES",
              "TLR4-SEP-NOTOURSNOTOURSNO"},
             kFilterEmpty + kNatHead +
                 ":TLR3-SVC-67NZLRHBNDSAWJRO - [0:0]\n"
                 ":TLR3-SEP-WLKT2AYFHQJSE77D - [0:0]\n" +
                 kNatFixed +
                 "-A TLR3-SERVICES -m comment --comment \"shop/web:http cluster IP\" -d "
                 "10.201.3.20/32 -p tcp -m tcp --dport 80 -j TLR3-SVC-67NZLRHBNDSAWJRO\n"
                 "-A TLR3-SVC-67NZLRHBNDSAWJRO -m comment --comment \"shop/web:http cluster "
                 "IP\" ! -s 10.200.0.0/16 -d 10.201.3.20/32 -p tcp -m tcp --dport 80 -j "
                 "TLR3-MARK-MASQ\n"
                 "-A TLR3-SVC-67NZLRHBNDSAWJRO -m comment --comment \"shop/web:http -> "
                 "10.200.3.5:8080\" -j TLR3-SEP-WLKT2AYFHQJSE77D\n"
                 "-A TLR3-SEP-WLKT2AYFHQJSE77D -m comment --comment \"shop/web:http\" -s "
                 "10.200.3.5/32 -j TLR3-MARK-MASQ\n"
                 "-A TLR3-SEP-WLKT2AYFHQJSE77D -m comment --comment \"shop/web:http\" -p tcp -m "
                 "tcp -j DNAT --to-destination 10.200.3.5:8080\n"
                 ":TLR3-SEP-OLDOLDOLDOLDOLDO - [0:0]\n"
                 "-X TLR3-SEP-OLDOLDOLDOLDOLDO\n"
                 "COMMIT\n"},
        Case{"HeadlessAndUnallocatedServicesAreNotProxied",
             {{.ns = "shop", .name = "db", .cluster_ip = "None", .ports = {{.port = 5432}}},
              {.ns = "shop", .name = "ext", .cluster_ip = "", .ports = {{.port = 80}}}},
             {slice("db", {{.ip = "10.200.3.5"}}, {{.port = 5432}})},
             {},
             kFilterEmpty + kNatHead + kNatFixed + "COMMIT\n"}),
    [](const testing::TestParamInfo<Case>& info) { return info.param.name; });

TEST(ServiceProxy, UdpPortsAndUnnamedPortsMatchTheirSlicePorts) {
  const std::string rules =
      service_proxy_rules(7,
                          {{.ns = "kube-system",
                            .name = "kube-dns",
                            .cluster_ip = "10.201.7.10",
                            .ports = {{.name = "dns", .protocol = "UDP", .port = 53},
                                      {.name = "dns-tcp", .protocol = "TCP", .port = 53}}}},
                          {{.ns = "kube-system",
                            .service = "kube-dns",
                            .endpoints = {{.ip = "10.201.7.10"}},
                            .ports = {{.name = "dns", .protocol = "UDP", .port = 53},
                                      {.name = "dns-tcp", .protocol = "TCP", .port = 53}}}},
                          {});
  EXPECT_NE(rules.find("-d 10.201.7.10/32 -p udp -m udp --dport 53 -j TLR7-SVC-"),
            std::string::npos)
      << rules;
  EXPECT_NE(rules.find("-p udp -m udp -j DNAT --to-destination 10.201.7.10:53"), std::string::npos);
  EXPECT_NE(rules.find("-p tcp -m tcp -j DNAT --to-destination 10.201.7.10:53"), std::string::npos);
  EXPECT_EQ(rules.find("REJECT"), std::string::npos);
  // An unnamed service port takes the slice's unnamed port, the target port resolved there.
  const std::string unnamed = service_proxy_rules(
      7, {{.ns = "a", .name = "b", .cluster_ip = "10.201.7.30", .ports = {{.port = 80}}}},
      {{.ns = "a", .service = "b", .endpoints = {{.ip = "10.200.7.4"}}, .ports = {{.port = 8080}}}},
      {});
  EXPECT_NE(unnamed.find("DNAT --to-destination 10.200.7.4:8080"), std::string::npos) << unnamed;
  EXPECT_NE(unnamed.find("\"a/b cluster IP\""), std::string::npos);
}

TEST(ServiceProxy, ChainNamesAreKubeProxysHashes) {
  const std::string rules = service_proxy_rules(2,
                                                {{.ns = "default",
                                                  .name = "kubernetes",
                                                  .cluster_ip = "10.201.2.1",
                                                  .ports = {{.name = "https", .port = 443}}}},
                                                {{.ns = "default",
                                                  .service = "kubernetes",
                                                  .endpoints = {{.ip = "10.200.2.1"}},
                                                  .ports = {{.name = "https", .port = 41234}}}},
                                                {});
  EXPECT_NE(rules.find("--dport 443 -j TLR2-SVC-NPX46M4PTMTKRN6Y\n"), std::string::npos) << rules;
  EXPECT_NE(rules.find("DNAT --to-destination 10.200.2.1:41234"), std::string::npos);
}

TEST(ServiceProxy, ThreeEndpointsAThirdEach) {
  const std::string rules = service_proxy_rules(
      1, {kWeb},
      {slice("web", {{.ip = "10.200.1.2"}, {.ip = "10.200.1.3"}, {.ip = "10.200.1.4"}},
             {{.name = "http", .port = 80}})},
      {});
  EXPECT_NE(rules.find("--probability 0.3333333333 -j"), std::string::npos) << rules;
  EXPECT_NE(rules.find("--probability 0.5000000000 -j"), std::string::npos);
  EXPECT_NE(rules.find("10.200.1.4:80\" -j TLR1-SEP-"), std::string::npos);
}

TEST(ServiceProxy, DecodesServicesAndSlicesAsUpstreamConsumersRead) {
  const ProxyService s = decode_proxy_service(
      R"({"metadata":{"namespace":"shop","name":"web"},"spec":{"clusterIP":"10.201.3.20",
          "ports":[{"name":"http","port":80,"targetPort":"web"},{"port":53,"protocol":"UDP"}]}})");
  EXPECT_EQ(s.ns, "shop");
  EXPECT_EQ(s.cluster_ip, "10.201.3.20");
  ASSERT_EQ(s.ports.size(), 2u);
  EXPECT_EQ(s.ports[0].protocol, "TCP");
  EXPECT_EQ(s.ports[1].protocol, "UDP");
  const SliceView sl = decode_slice_view(
      R"({"metadata":{"namespace":"shop","name":"web-x1","labels":{"kubernetes.io/service-name":"web"}},
          "addressType":"IPv4","ports":[{"name":"http","port":8080,"protocol":"TCP"}],
          "endpoints":[{"addresses":["10.200.3.5"]},
                       {"addresses":["10.200.3.6"],"conditions":{"ready":false,"terminating":true}}]})");
  EXPECT_EQ(sl.service, "web");
  ASSERT_EQ(sl.endpoints.size(), 2u);
  EXPECT_TRUE(sl.endpoints[0].ready) << "no conditions: ready";
  EXPECT_TRUE(sl.endpoints[0].serving);
  EXPECT_FALSE(sl.endpoints[1].ready);
  EXPECT_FALSE(sl.endpoints[1].serving) << "serving unset: ready's value";
  EXPECT_TRUE(sl.endpoints[1].terminating);
  EXPECT_THROW(decode_slice_view("[]"), std::invalid_argument);
}

TEST(ServiceProxy, JumpsFromTheBuiltInChainsCarryTheEnvironment) {
  const auto jumps = service_proxy_jumps(12);
  ASSERT_EQ(jumps.size(), 5u);
  EXPECT_EQ(jumps[0].table, "nat");
  EXPECT_EQ(jumps[0].chain, "PREROUTING");
  EXPECT_EQ(jumps[0].rule, (std::vector<std::string>{"-m", "comment", "--comment",
                                                     "tailor environment 12 service portals", "-j",
                                                     "TLR12-SERVICES"}));
  EXPECT_EQ(jumps[2].chain, "POSTROUTING");
  EXPECT_EQ(jumps[2].rule.back(), "TLR12-POSTROUTING");
  EXPECT_EQ(jumps[3].table, "filter");
  EXPECT_EQ(jumps[3].chain, "FORWARD");
  EXPECT_EQ(jumps[3].rule[3], "NEW");
}

TEST(ServiceProxy, ChainsReadFromIptablesSaveAndTheirRemoval) {
  const std::string saved =
      "# Generated by iptables-save\n*nat\n:PREROUTING ACCEPT [0:0]\n:TLR3-SERVICES - [0:0]\n"
      ":TLR3-SEP-AAAA - [0:0]\n:TLR30-SERVICES - [0:0]\n-A PREROUTING -j TLR3-SERVICES\nCOMMIT\n";
  EXPECT_EQ(saved_chains(saved, proxy_chain_prefix(3)),
            (std::set<std::string>{"TLR3-SEP-AAAA", "TLR3-SERVICES"}));
  EXPECT_EQ(service_proxy_removal(3, {"TLR3-SEP-AAAA", "TLR3-SERVICES"}),
            "*filter\n:TLR3-SERVICES - [0:0]\n-X TLR3-SERVICES\nCOMMIT\n"
            "*nat\n:TLR3-SEP-AAAA - [0:0]\n:TLR3-SERVICES - [0:0]\n"
            "-X TLR3-SEP-AAAA\n-X TLR3-SERVICES\nCOMMIT\n");
}

}  // namespace
}  // namespace tailor::cli
