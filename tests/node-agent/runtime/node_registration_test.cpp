// The node's documents: --node-allocatable parsing and the Node / status / Lease JSON.
#include "node-agent/runtime/node_registration.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace tailor::node::runtime {
namespace {
namespace bj = boost::json;

NodeIdentity identity() {
  return {.name = "tailor-node-1",
          .host_ip = "127.0.0.1",
          .allocatable = kube::ResourceList{{"cpu", kube::Quantity::parse("2")},
                                            {"memory", kube::Quantity::parse("2Gi")}},
          .runtime_version = "containerd://1.6.20"};
}

TEST(NodeDocuments, NodeCarriesCapacityLabelsAndReady) {
  const bj::value node = bj::parse(node_document(identity(), "2026-01-01T00:00:00Z"));
  EXPECT_EQ(node.at("kind"), "Node");
  EXPECT_EQ(node.at("metadata").at("labels").at("kubernetes.io/hostname"), "tailor-node-1");
  const auto& status = node.at("status");
  EXPECT_EQ(status.at("capacity").at("cpu"), "2");
  EXPECT_EQ(status.at("allocatable").at("memory"), "2Gi");
  EXPECT_EQ(status.at("allocatable").at("pods"), "110");  // added when not given
  EXPECT_EQ(status.at("nodeInfo").at("containerRuntimeVersion"), "containerd://1.6.20");
  EXPECT_EQ(status.at("addresses").at(0).at("address"), "127.0.0.1");
  const auto& ready = status.at("conditions").at(0);
  EXPECT_EQ(ready.at("type"), "Ready");
  EXPECT_EQ(ready.at("status"), "True");
  EXPECT_EQ(ready.at("reason"), "KubeletReady");
}

TEST(NodeDocuments, TheKubeletEndpointIsNamedWhenTheAgentServesOne) {
  NodeIdentity node = identity();
  EXPECT_FALSE(bj::parse(node_document(node, "2026-01-01T00:00:00Z"))
                   .at("status")
                   .as_object()
                   .contains("daemonEndpoints"));
  node.kubelet_port = 40123;
  const bj::value patch =
      bj::parse(node_status_patch(node, "2026-01-01T00:05:00Z", "2026-01-01T00:00:00Z"));
  EXPECT_EQ(patch.at("status").at("daemonEndpoints").at("kubeletEndpoint").at("Port"), 40123);
  EXPECT_EQ(patch.at("status").at("addresses").at(0).at("type"), "InternalIP");
}

TEST(NodeDocuments, HeartbeatKeepsTheTransitionTime) {
  const bj::value patch =
      bj::parse(node_status_patch(identity(), "2026-01-01T00:05:00Z", "2026-01-01T00:00:00Z"));
  const auto& ready = patch.at("status").at("conditions").at(0);
  EXPECT_EQ(ready.at("lastHeartbeatTime"), "2026-01-01T00:05:00Z");
  EXPECT_EQ(ready.at("lastTransitionTime"), "2026-01-01T00:00:00Z");
}

TEST(NodeDocuments, LeaseIsHeldByTheNodeAndOwnedByIt) {
  const bj::value lease =
      bj::parse(lease_document(identity(), "node-uid", "2026-01-01T00:00:00.000000Z"));
  EXPECT_EQ(lease.at("metadata").at("namespace"), "kube-node-lease");
  EXPECT_EQ(lease.at("metadata").at("ownerReferences").at(0).at("uid"), "node-uid");
  EXPECT_EQ(lease.at("spec").at("holderIdentity"), "tailor-node-1");
  EXPECT_EQ(lease.at("spec").at("leaseDurationSeconds"), 40);
  EXPECT_EQ(bj::parse(lease_renew_patch("T")).at("spec").at("renewTime"), "T");
}

}  // namespace
}  // namespace tailor::node::runtime
