// The cluster DNS's records (the Kubernetes DNS spec's A records for Services and headless
// endpoints), decoded from the objects as the API serves them, and dnsmasq's command line.
#include "cli/cluster_dns.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <boost/json.hpp>

namespace tailor::cli {
namespace {

DnsPod pod(const std::string& ip, std::map<std::string, std::string> labels, bool ready = true) {
  return {.ns = "team", .ip = ip, .labels = std::move(labels), .ready = ready};
}

TEST(ClusterDnsHosts, RecordsAsTheDnsSpecAsksThem) {
  const std::map<std::string, std::string> db{{"app", "db"}};
  DnsPod named = pod("10.200.0.7", db);
  named.hostname = "db-0";
  named.subdomain = "db";
  DnsPod other_subdomain = pod("10.200.0.8", db);
  other_subdomain.hostname = "db-1";
  other_subdomain.subdomain = "elsewhere";
  DnsPod terminating = pod("10.200.0.9", db);
  terminating.terminating = true;
  DnsPod other_ns = pod("10.200.0.10", db);
  other_ns.ns = "other";
  const std::vector<DnsPod> pods = {named,
                                    other_subdomain,
                                    terminating,
                                    other_ns,
                                    pod("10.200.0.11", db, /*ready=*/false),
                                    pod("", db),
                                    pod("10.200.1.5", {{"app", "web"}})};
  const std::vector<DnsService> services = {
      {.ns = "team", .name = "web", .cluster_ip = "10.96.0.20", .selector = {{"app", "web"}}},
      {.ns = "team", .name = "db", .cluster_ip = "None", .selector = db},
      {.ns = "team", .name = "pending", .cluster_ip = "", .selector = db},
      {.ns = "team", .name = "manual", .cluster_ip = "None"},
      {.ns = "team",
       .name = "all",
       .cluster_ip = "None",
       .selector = db,
       .publish_not_ready_addresses = true},
  };
  EXPECT_EQ(cluster_dns_hosts(services, pods),
            "10.200.0.11 all.team.svc.cluster.local\n"
            "10.200.0.7 all.team.svc.cluster.local\n"
            "10.200.0.8 all.team.svc.cluster.local\n"
            "10.200.0.7 db-0.db.team.svc.cluster.local\n"
            "10.200.0.7 db.team.svc.cluster.local\n"
            "10.200.0.8 db.team.svc.cluster.local\n"
            "10.96.0.20 web.team.svc.cluster.local\n");
  EXPECT_EQ(cluster_dns_hosts(services, {}, "example.internal"),
            "10.96.0.20 web.team.svc.example.internal\n");
}

TEST(ClusterDnsHosts, ObjectsAreDecodedFromTheirJson) {
  const DnsService service = decode_dns_service(R"({"metadata":{"name":"db","namespace":"team"},
      "spec":{"clusterIP":"None","selector":{"app":"db"},"publishNotReadyAddresses":true}})");
  EXPECT_EQ(service.ns, "team");
  EXPECT_EQ(service.name, "db");
  EXPECT_EQ(service.cluster_ip, "None");
  EXPECT_EQ(service.selector, (std::map<std::string, std::string>{{"app", "db"}}));
  EXPECT_TRUE(service.publish_not_ready_addresses);
  const DnsPod p = decode_dns_pod(R"({"metadata":{"namespace":"team","labels":{"app":"db"},
      "deletionTimestamp":"2026-01-01T00:00:00Z"},"spec":{"hostname":"db-0","subdomain":"db"},
      "status":{"podIP":"10.200.0.7","conditions":[{"type":"PodScheduled","status":"True"},
      {"type":"Ready","status":"True"}]}})");
  EXPECT_EQ(p.ip, "10.200.0.7");
  EXPECT_EQ(p.hostname, "db-0");
  EXPECT_EQ(p.subdomain, "db");
  EXPECT_TRUE(p.ready);
  EXPECT_TRUE(p.terminating);
  EXPECT_FALSE(decode_dns_pod(R"({"metadata":{},"status":{}})").ready);
  EXPECT_THROW(decode_dns_pod("[]"), std::exception);
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
