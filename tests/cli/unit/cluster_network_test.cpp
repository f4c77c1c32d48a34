// A node's pod network: one /24 of 10.200.0.0/16 per slot, and the CNI conflist the node's
// containerd reads (bridge with host-local IPAM, no NAT between pods and the host).
#include "cli/cluster_network.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <stdexcept>

namespace tailor::cli {
namespace {
namespace bj = boost::json;

TEST(PodNetwork, EachSlotHasItsBridgeSubnetAndGateway) {
  const PodNetwork first = pod_network(0);
  EXPECT_EQ(first.bridge, "tailor-br0");
  EXPECT_EQ(first.subnet, "10.200.0.0/24");
  EXPECT_EQ(first.gateway, "10.200.0.1");
  EXPECT_EQ(first.service_cidr, "10.201.0.0/24");
  EXPECT_EQ(first.cluster_dns, "10.201.0.10") << "kubeadm's kube-dns: the range's 10th address";
  const PodNetwork last = pod_network(255);
  EXPECT_EQ(last.bridge, "tailor-br255");
  EXPECT_LE(last.bridge.size(), 15u) << "a Linux interface name has at most 15 characters";
  EXPECT_EQ(last.subnet, "10.200.255.0/24");
  // One slot, one environment: two environments' service ranges never overlap, nor a service
  // range the pod networks.
  EXPECT_EQ(last.service_cidr, "10.201.255.0/24");
}

TEST(PodNetwork, ASlotOutsideTheRangeIsRefused) {
  EXPECT_THROW(pod_network(-1), std::invalid_argument);
  EXPECT_THROW(pod_network(256), std::invalid_argument);
}

TEST(PodNetwork, TheConflistIsABridgeWithHostLocalIpamUnderTheNodesDir) {
  const bj::value conflist =
      bj::parse(pod_network_conflist(pod_network(7), "/tmp/env/node-1/containerd/cni-ipam"));
  EXPECT_EQ(conflist.at("cniVersion"), "1.0.0");
  EXPECT_EQ(conflist.at("name"), "tailor-pods-7");
  const auto& plugins = conflist.at("plugins").as_array();
  ASSERT_EQ(plugins.size(), 1u) << "containerd attaches loopback itself";
  const auto& bridge = plugins[0];
  EXPECT_EQ(bridge.at("type"), "bridge");
  EXPECT_EQ(bridge.at("bridge"), "tailor-br7");
  EXPECT_EQ(bridge.at("isGateway"), true);
  EXPECT_EQ(bridge.at("ipMasq"), false) << "pods reach pods and the host without NAT";
  const auto& ipam = bridge.at("ipam");
  EXPECT_EQ(ipam.at("type"), "host-local");
  EXPECT_EQ(ipam.at("dataDir"), "/tmp/env/node-1/containerd/cni-ipam");
  EXPECT_EQ(ipam.at("ranges"),
            bj::parse(R"([[{"subnet":"10.200.7.0/24","gateway":"10.200.7.1"}]])"));
  EXPECT_EQ(ipam.at("routes"), bj::parse(R"([{"dst":"0.0.0.0/0"}])"));
}

}  // namespace
}  // namespace tailor::cli
