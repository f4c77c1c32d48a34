// tailor-node-agent's own options (the common ones are observe/common_options.h), as flags and
// YAML keys:
//   --node-name NAME              nodeName              (required; pods are watched with
//                                                        fieldSelector spec.nodeName=NAME)
//   --runtime-endpoint ENDPOINT   runtimeEndpoint       (unix:///run/containerd/containerd.sock)
//   --checkpoint-dir DIR          checkpointDir         (/var/lib/tailor-node-agent)
//   --actuation agent|kubelet     actuation             (kubelet: observe and report only)
//   --cgroup-driver cgroupfs|systemd, --cgroup-root DIR   cgroupDriver, cgroupRoot
//   --pod-log-dir DIR             podLogDir             (/var/log/pods; embedded mode: where the
//                                                        runtime writes container logs)
//   --node-allocatable cpu=2,memory=2Gi                 nodeAllocatable ("" : the Node's)
//   --cpu-manager-policy none|static, --memory-manager-policy none|static
//   --resize-retry-period 60s     resizeRetryPeriod     (safety-net retry of Deferred resizes)
//   --usage-endpoint HOST:PORT    usage.endpoint        (the controller's usage stream; "": metrics
//   only)
//   --usage-ca-file, --usage-cert-file, --usage-key-file   usage.caFile, usage.certFile,
//   usage.keyFile (the usage CA; this agent's certificate CN=system:node:NAME, O=system:nodes)
//   --usage-server-name NAME      usage.serverName      (the controller certificate's name)
//   --usage-insecure              usage.insecure        (plaintext: tests and development only)
//   --usage-sample-interval 5s, --usage-report-interval 15s   usage.sampleInterval,
//   usage.reportInterval
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "kube/model/resources.h"
#include "kube/observe/duration.h"
#include "kube/observe/options.h"
#include "node-agent/allocation/resize_admission.h"
#include "node-agent/cri/pod_cgroup.h"

namespace tailor::node {

// agent: the agent owns the resize path (embedded-cluster nodes, no kubelet). kubelet: the kubelet
// owns it; the agent observes, verifies and reports, and never writes what the kubelet owns.
enum class Actuation { Agent, Kubelet };

struct AgentOptions {
  std::string node_name;
  std::string runtime_endpoint = "unix:///run/containerd/containerd.sock";
  std::string checkpoint_dir = "/var/lib/tailor-node-agent";
  Actuation actuation = Actuation::Kubelet;
  cri::CgroupDriver cgroup_driver = cri::CgroupDriver::Cgroupfs;
  std::string cgroup_root = "/sys/fs/cgroup";
  std::string pod_log_dir = "/var/log/pods";
  std::string host_path_root;  // embedded mode: runtime::PodRuntimeOptions::host_path_root
  // Pods' DNS, the kubelet's flags of the same names (node-agent/runtime/pod_dns.h).
  std::vector<std::string> cluster_dns;
  std::string cluster_domain;
  std::string resolv_conf = "/etc/resolv.conf";
  kube::ResourceList node_allocatable;  // empty: read from the Node object
  allocation::CpuManagerPolicy cpu_manager_policy = allocation::CpuManagerPolicy::None;
  allocation::MemoryManagerPolicy memory_manager_policy = allocation::MemoryManagerPolicy::None;
  kube::Duration resize_retry_period = std::chrono::seconds(60);
  std::string usage_endpoint;
  std::string usage_ca_file, usage_cert_file, usage_key_file, usage_server_name;
  bool usage_insecure = false;
  kube::Duration usage_sample_interval = std::chrono::seconds(5);
  kube::Duration usage_report_interval = std::chrono::seconds(15);
};

void add_agent_options(kube::config::Schema& schema, AgentOptions& options);
// Throws config::ConfigError naming the option when a required one is missing.
void validate(const AgentOptions& options);

// Parsers (std::invalid_argument with the reason on bad input).
Actuation parse_actuation(std::string_view text);
cri::CgroupDriver parse_cgroup_driver(std::string_view text);
// "cpu=2,memory=2Gi"; each quantity non-negative, each name once.
kube::ResourceList parse_resource_list(std::string_view text);
std::string format_resource_list(const kube::ResourceList& list);

// v2 when the root is the unified hierarchy (it has cgroup.controllers), else v1.
cri::CgroupVersion detect_cgroup_version(const std::string& cgroup_root);

}  // namespace tailor::node
