#include "node-agent/main/agent_options.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace tailor::node {
namespace {

AgentOptions parse(const std::vector<std::string>& args) {
  kube::config::Schema schema("tailor-node-agent", "test");
  AgentOptions options;
  add_agent_options(schema, options);
  schema.parse(args);
  return options;
}

TEST(AgentOptions, Defaults) {
  const AgentOptions o = parse({});
  EXPECT_EQ(o.actuation, Actuation::Kubelet);  // never write what a kubelet owns by default
  EXPECT_EQ(o.cgroup_driver, cri::CgroupDriver::Cgroupfs);
  EXPECT_TRUE(o.node_allocatable.empty());
  EXPECT_EQ(o.pod_log_dir, "/var/log/pods");             // the kubelet's
  EXPECT_THROW(validate(o), kube::config::ConfigError);  // no node name
}

TEST(AgentOptions, Flags) {
  const AgentOptions o = parse({"--node-name",
                                "n1",
                                "--actuation=agent",
                                "--cgroup-driver",
                                "systemd",
                                "--node-allocatable",
                                "cpu=2,memory=2Gi",
                                "--cpu-manager-policy",
                                "static",
                                "--resize-retry-period",
                                "30s",
                                "--checkpoint-dir",
                                "/tmp/x",
                                "--pod-log-dir",
                                "/tmp/logs",
                                "--cluster-dns=10.200.0.1,10.200.1.1",
                                "--cluster-domain",
                                "cluster.local",
                                "--resolv-conf",
                                ""});
  EXPECT_EQ(o.node_name, "n1");
  EXPECT_EQ(o.actuation, Actuation::Agent);
  EXPECT_EQ(o.cgroup_driver, cri::CgroupDriver::Systemd);
  EXPECT_EQ(o.node_allocatable, (kube::ResourceList{{"cpu", kube::Quantity::parse("2")},
                                                    {"memory", kube::Quantity::parse("2Gi")}}));
  EXPECT_EQ(o.cpu_manager_policy, allocation::CpuManagerPolicy::Static);
  EXPECT_EQ(o.resize_retry_period, std::chrono::seconds(30));
  EXPECT_EQ(o.pod_log_dir, "/tmp/logs");
  EXPECT_EQ(o.cluster_dns, (std::vector<std::string>{"10.200.0.1", "10.200.1.1"}));
  EXPECT_EQ(o.cluster_domain, "cluster.local");
  EXPECT_EQ(o.resolv_conf, "") << "--resolv-conf "
                                  ": no host resolver, as the kubelet's";
  EXPECT_NO_THROW(validate(o));
}

// The controller takes windows only from authenticated agents: an endpoint without the agent's
// certificate is a configuration error, not a stream that is refused at every report.
TEST(AgentOptions, AUsageEndpointNeedsTheAgentsCertificate) {
  const std::vector<std::string> base = {"--node-name=n1", "--usage-endpoint=10.0.0.1:9443"};
  auto with = [&](std::vector<std::string> more) {
    more.insert(more.begin(), base.begin(), base.end());
    return parse(more);
  };
  try {
    validate(with({"--usage-ca-file=/ca.crt", "--usage-cert-file=/tls.crt"}));
    ADD_FAILURE() << "accepted an endpoint without --usage-key-file";
  } catch (const kube::config::ConfigError& e) {
    EXPECT_STREQ(e.what(),
                 "--usage-endpoint needs --usage-ca-file, --usage-cert-file and "
                 "--usage-key-file (the controller accepts only authenticated agents), or "
                 "--usage-insecure");
  }
  const AgentOptions tls = with({"--usage-ca-file=/ca.crt", "--usage-cert-file=/tls.crt",
                                 "--usage-key-file=/tls.key", "--usage-server-name=tailor"});
  EXPECT_NO_THROW(validate(tls));
  EXPECT_EQ(tls.usage_server_name, "tailor");
  EXPECT_FALSE(tls.usage_insecure);
  EXPECT_NO_THROW(validate(with({"--usage-insecure"})));
  EXPECT_NO_THROW(validate(parse({"--node-name=n1"})));  // no stream, nothing to authenticate
}

TEST(AgentOptions, YamlConfig) {
  const auto path = std::filesystem::temp_directory_path() / "tailor-agent-options-test.yaml";
  std::ofstream(path) << "nodeName: n2\nactuation: agent\nnodeAllocatable: cpu=4\n";
  const AgentOptions o = parse({"--config", path.string()});
  std::filesystem::remove(path);
  EXPECT_EQ(o.node_name, "n2");
  EXPECT_EQ(o.actuation, Actuation::Agent);
  EXPECT_EQ(o.node_allocatable, (kube::ResourceList{{"cpu", kube::Quantity::parse("4")}}));
}

TEST(AgentOptions, BadValuesNameTheFlag) {
  for (const std::vector<std::string>& args : {std::vector<std::string>{"--actuation", "both"},
                                               {"--cgroup-driver", "cgroupv3"},
                                               {"--node-allocatable", "cpu"},
                                               {"--node-allocatable", "cpu=-1"},
                                               {"--node-allocatable", "cpu=1,cpu=2"},
                                               {"--node-allocatable", "cpu=lots"},
                                               {"--memory-manager-policy", "dynamic"}}) {
    try {
      parse(args);
      ADD_FAILURE() << "accepted " << args[0] << " " << args[1];
    } catch (const kube::config::ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find(args[0].substr(2)), std::string::npos) << e.what();
    }
  }
}

TEST(AgentOptions, ResourceListRoundTrip) {
  EXPECT_EQ(format_resource_list(parse_resource_list(" cpu=1500m , memory=1Gi")),
            "cpu=1500m,memory=1Gi");
  EXPECT_TRUE(parse_resource_list("").empty());
}

TEST(AgentOptions, CgroupVersionDetection) {
  const auto dir = std::filesystem::temp_directory_path() / "tailor-cgroup-detect-test";
  std::filesystem::create_directories(dir);
  EXPECT_EQ(detect_cgroup_version(dir.string()), cri::CgroupVersion::V1);
  std::ofstream(dir / "cgroup.controllers") << "cpu memory\n";
  EXPECT_EQ(detect_cgroup_version(dir.string()), cri::CgroupVersion::V2);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace tailor::node
