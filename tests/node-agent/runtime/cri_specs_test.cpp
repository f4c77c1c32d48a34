// The sandbox's network namespace and hostname, chosen as the kubelet chooses them.
#include "node-agent/runtime/cri_specs.h"

#include <gtest/gtest.h>

namespace tailor::node::runtime {
namespace {

RuntimePod named(const std::string& name, bool host_network) {
  RuntimePod pod;
  pod.pod.metadata.name = name;
  pod.pod.metadata.uid = "0000-1111";
  pod.run.host_network = host_network;
  return pod;
}

TEST(SandboxNetwork, HostNetworkPodsShareTheNodesNamespaceOthersGetTheirOwn) {
  EXPECT_EQ(sandbox_network_mode(named("a", false).run), cri::NamespaceMode::Pod);
  EXPECT_EQ(sandbox_network_mode(named("a", true).run), cri::NamespaceMode::Node);
}

TEST(SandboxNetwork, TheHostnameIsThePodsNameCutTo63WithoutATrailingDashOrDot) {
  EXPECT_EQ(sandbox_hostname(named("web-0", false)), "web-0");
  const std::string long_name = std::string(62, 'a') + "-b";  // cut after the dash
  EXPECT_EQ(sandbox_hostname(named(long_name, false)), std::string(62, 'a'));
  EXPECT_EQ(sandbox_hostname(named("web-0", true)), "") << "hostNetwork: the node's UTS";
  EXPECT_EQ(sandbox_spec(named("web-0", false), {}).hostname, "web-0");
  EXPECT_EQ(sandbox_spec(named("web-0", true), {}).network, cri::NamespaceMode::Node);
}

}  // namespace
}  // namespace tailor::node::runtime
