// The cluster DNS's records (the Kubernetes DNS spec's A records for Services and headless
// endpoints) from Services and EndpointSlices as CoreDNS reads them, and dnsmasq's command line.
#include "cli/cluster_dns.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <boost/json.hpp>

namespace tailor::cli {
namespace {

SliceView slice(const std::string& ns, const std::string& service,
                std::vector<SliceEndpoint> endpoints) {
  return {.ns = ns, .service = service, .endpoints = std::move(endpoints)};
}

TEST(ClusterDnsHosts, RecordsAsTheDnsSpecAsksThemFromEndpointSlices) {
  const std::vector<SliceView> slices = {
      slice("team", "db",
            {{.ip = "10.200.0.7", .hostname = "db-0"},
             {.ip = "10.200.0.8"},
             {.ip = "10.200.0.11", .ready = false, .serving = false},
             {.ip = "10.200.0.12", .hostname = "Not_A_Label"}}),
      slice("other", "db", {{.ip = "10.200.0.10"}}),
      slice("team", "manual", {{.ip = "192.0.2.9"}}),  // a selector-less Service's own slice
      slice("team", "web", {{.ip = "10.200.1.5"}}),
  };
  SliceView v6 = slice("team", "db", {{.ip = "fd00::7"}});
  v6.address_type = "IPv6";
  std::vector<SliceView> with_v6 = slices;
  with_v6.push_back(v6);
  const std::vector<ProxyService> services = {
      {.ns = "team", .name = "web", .cluster_ip = "10.96.0.20"},
      {.ns = "team", .name = "db", .cluster_ip = "None"},
      {.ns = "team", .name = "pending", .cluster_ip = ""},
      {.ns = "team", .name = "manual", .cluster_ip = "None"},
  };
  EXPECT_EQ(cluster_dns_hosts(services, with_v6),
            "10.200.0.7 db-0.db.team.svc.cluster.local\n"
            "10.200.0.12 db.team.svc.cluster.local\n"
            "10.200.0.7 db.team.svc.cluster.local\n"
            "10.200.0.8 db.team.svc.cluster.local\n"
            "192.0.2.9 manual.team.svc.cluster.local\n"
            "10.96.0.20 web.team.svc.cluster.local\n");
  EXPECT_EQ(cluster_dns_hosts(services, {}, "example.internal"),
            "10.96.0.20 web.team.svc.example.internal\n");
}

TEST(ClusterDnsHosts, SliceHostnamesAreDecoded) {
  const SliceView s = decode_slice_view(
      R"({"metadata":{"namespace":"team","labels":{"kubernetes.io/service-name":"db"}},
          "addressType":"IPv4","endpoints":[{"addresses":["10.200.0.7"],"hostname":"db-0",
          "conditions":{"ready":true}}]})");
  ASSERT_EQ(s.endpoints.size(), 1u);
  EXPECT_EQ(s.endpoints[0].hostname, "db-0");
}

TEST(ClusterDnsHosts, DnsmasqListensOnOneAddressAndOwnsTheZone) {
  const auto command = dnsmasq_command("/usr/sbin/dnsmasq", "10.200.3.1", "/run/dns/hosts");
  auto has = [&](const std::string& arg) {
    return std::find(command.begin(), command.end(), arg) != command.end();
  };
  EXPECT_EQ(command.front(), "/usr/sbin/dnsmasq");
  EXPECT_TRUE(has("--listen-address=10.200.3.1"));
  EXPECT_TRUE(has("--bind-interfaces")) << "not the host's port 53 of every address";
  EXPECT_TRUE(has("--local=/cluster.local/")) << "NXDOMAIN for other names of the zone";
  EXPECT_TRUE(has("--hostsdir=/run/dns/hosts"));
  EXPECT_TRUE(has("--no-hosts")) << "the host's /etc/hosts is not the cluster's";
}

TEST(ClusterDnsHosts, KubeDnsServiceNamesTheDnsAddress) {
  const boost::json::value service = boost::json::parse(kube_dns_service("10.201.3.10"));
  EXPECT_EQ(service.at("metadata").at("namespace"), "kube-system");
  EXPECT_EQ(service.at("metadata").at("name"), "kube-dns");
  EXPECT_EQ(service.at("spec").at("clusterIP"), "10.201.3.10");
  EXPECT_EQ(service.at("spec").at("ports").as_array().size(), 2u);
  EXPECT_FALSE(service.at("spec").as_object().contains("selector"));
}

}  // namespace
}  // namespace tailor::cli
