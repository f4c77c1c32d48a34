#include "node-agent/main/agent_options.h"

#include <filesystem>
#include <set>
#include <stdexcept>

namespace tailor::node {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

template <class Enum>
void add_enum(kube::config::Schema& schema, kube::config::Option option, Enum* target,
              Enum (*parse)(std::string_view), std::string (*show)(const Enum&), std::string type) {
  schema.add<Enum>(std::move(option), target, parse, show, std::move(type));
}

allocation::CpuManagerPolicy parse_cpu_policy(std::string_view text) {
  if (text == "none") return allocation::CpuManagerPolicy::None;
  if (text == "static") return allocation::CpuManagerPolicy::Static;
  throw std::invalid_argument("must be none or static, not \"" + std::string(text) + "\"");
}
allocation::MemoryManagerPolicy parse_memory_policy(std::string_view text) {
  if (text == "none" || text == "None") return allocation::MemoryManagerPolicy::None;
  if (text == "static" || text == "Static") return allocation::MemoryManagerPolicy::Static;
  throw std::invalid_argument("must be none or static, not \"" + std::string(text) + "\"");
}

}  // namespace

Actuation parse_actuation(std::string_view text) {
  if (text == "agent") return Actuation::Agent;
  if (text == "kubelet") return Actuation::Kubelet;
  throw std::invalid_argument("must be agent or kubelet, not \"" + std::string(text) + "\"");
}

cri::CgroupDriver parse_cgroup_driver(std::string_view text) {
  if (text == "cgroupfs") return cri::CgroupDriver::Cgroupfs;
  if (text == "systemd") return cri::CgroupDriver::Systemd;
  throw std::invalid_argument("must be cgroupfs or systemd, not \"" + std::string(text) + "\"");
}

kube::ResourceList parse_resource_list(std::string_view text) {
  kube::ResourceList out;
  text = trim(text);
  while (!text.empty()) {
    const std::size_t comma = text.find(',');
    const std::string_view item = trim(text.substr(0, comma));
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    const std::size_t eq = item.find('=');
    if (eq == std::string_view::npos || eq == 0) {
      throw std::invalid_argument("\"" + std::string(item) + "\" is not name=quantity");
    }
    const std::string name(trim(item.substr(0, eq)));
    std::string error;
    const auto quantity = kube::Quantity::try_parse(trim(item.substr(eq + 1)), &error);
    if (!quantity) throw std::invalid_argument(name + ": " + error);
    if (quantity->sign() < 0) throw std::invalid_argument(name + " is negative");
    if (!out.try_emplace(name, *quantity).second) {
      throw std::invalid_argument(name + " is given twice");
    }
  }
  return out;
}

std::string format_resource_list(const kube::ResourceList& list) {
  std::string out;
  for (const auto& [name, quantity] : list) {
    if (!out.empty()) out += ",";
    out += name + "=" + quantity.to_string();
  }
  return out;
}

cri::CgroupVersion detect_cgroup_version(const std::string& cgroup_root) {
  return std::filesystem::exists(std::filesystem::path(cgroup_root) / "cgroup.controllers")
             ? cri::CgroupVersion::V2
             : cri::CgroupVersion::V1;
}

void add_agent_options(kube::config::Schema& schema, AgentOptions& o) {
  schema.add({.flag = "node-name",
              .yaml_key = "nodeName",
              .help = "The node this agent serves (pods with spec.nodeName equal to it)."},
             &o.node_name);
  schema.add({.flag = "runtime-endpoint",
              .yaml_key = "runtimeEndpoint",
              .help = "CRI runtime socket, e.g. unix:///run/containerd/containerd.sock."},
             &o.runtime_endpoint);
  schema.add({.flag = "checkpoint-dir",
              .yaml_key = "checkpointDir",
              .help = "Directory of the allocation checkpoint."},
             &o.checkpoint_dir);
  add_enum<Actuation>(
      schema,
      {.flag = "actuation",
       .yaml_key = "actuation",
       .help = "agent: the agent admits and applies resizes (embedded clusters, no kubelet); "
               "kubelet: the kubelet does, the agent observes and reports."},
      &o.actuation, &parse_actuation,
      [](const Actuation& a) { return std::string(a == Actuation::Agent ? "agent" : "kubelet"); },
      "agent|kubelet");
  add_enum<cri::CgroupDriver>(
      schema, {.flag = "cgroup-driver", .yaml_key = "cgroupDriver", .help = "cgroupfs or systemd."},
      &o.cgroup_driver, &parse_cgroup_driver,
      [](const cri::CgroupDriver& d) {
        return std::string(d == cri::CgroupDriver::Cgroupfs ? "cgroupfs" : "systemd");
      },
      "cgroupfs|systemd");
  schema.add({.flag = "cgroup-root",
              .yaml_key = "cgroupRoot",
              .help = "Mount point of the cgroup hierarchies (v1 or v2 is detected)."},
             &o.cgroup_root);
  schema.add({.flag = "pod-log-dir",
              .yaml_key = "podLogDir",
              .help = "Embedded mode: the directory the runtime writes container logs to, in the "
                      "kubelet's layout (NAMESPACE_POD_UID/CONTAINER/ATTEMPT.log); tailor-cluster "
                      "serves pods/log from it when given the same --pod-log-dir."},
             &o.pod_log_dir);
  schema.add({.flag = "host-path-root",
              .yaml_key = "hostPathRoot",
              .help = "Embedded mode: the directory standing for this node's root in pods' "
                      "hostPath volumes (a hostPath /run/x is <root>/run/x), so that nodes "
                      "sharing one machine each give a DaemonSet's pod their own paths (\"\": "
                      "the machine's root, as the kubelet)."},
             &o.host_path_root);
  schema.add({.flag = "cluster-dns",
              .yaml_key = "clusterDNS",
              .help = "Embedded mode: the cluster DNS server(s) pods with dnsPolicy ClusterFirst "
                      "resolve through (the kubelet's --cluster-dns); none: they get the host's "
                      "resolv.conf and a MissingClusterDNS warning."},
             &o.cluster_dns);
  schema.add({.flag = "cluster-domain",
              .yaml_key = "clusterDomain",
              .help = "Embedded mode: the cluster's DNS zone (e.g. cluster.local), searched by "
                      "ClusterFirst pods as <ns>.svc.<zone>, svc.<zone>, <zone>."},
             &o.cluster_domain);
  schema.add({.flag = "resolv-conf",
              .yaml_key = "resolvConf",
              .help = "Embedded mode: the resolver configuration whose servers and search domains "
                      "pods with dnsPolicy Default get (\"\": none, lookups effectively off)."},
             &o.resolv_conf);
  add_enum<kube::ResourceList>(
      schema,
      {.flag = "node-allocatable",
       .yaml_key = "nodeAllocatable",
       .help = "Allocatable resources for admission, e.g. cpu=2,memory=2Gi (default: the Node's "
               "status.allocatable)."},
      &o.node_allocatable, &parse_resource_list, &format_resource_list, "name=quantity,...");
  add_enum<allocation::CpuManagerPolicy>(
      schema,
      {.flag = "cpu-manager-policy",
       .yaml_key = "cpuManagerPolicy",
       .help = "The node's CPU manager policy (static: CPU resizes of Guaranteed pods are "
               "Infeasible)."},
      &o.cpu_manager_policy, &parse_cpu_policy,
      [](const allocation::CpuManagerPolicy& p) {
        return std::string(p == allocation::CpuManagerPolicy::None ? "none" : "static");
      },
      "none|static");
  add_enum<allocation::MemoryManagerPolicy>(
      schema,
      {.flag = "memory-manager-policy",
       .yaml_key = "memoryManagerPolicy",
       .help = "The node's memory manager policy (static: memory resizes of Guaranteed pods are "
               "Infeasible)."},
      &o.memory_manager_policy, &parse_memory_policy,
      [](const allocation::MemoryManagerPolicy& p) {
        return std::string(p == allocation::MemoryManagerPolicy::None ? "none" : "static");
      },
      "none|static");
  schema.add({.flag = "resize-retry-period",
              .yaml_key = "resizeRetryPeriod",
              .help = "Safety-net retry of Deferred resizes (they are retried at once when "
                      "capacity is freed)."},
             &o.resize_retry_period);
  schema.add({.flag = "usage-endpoint",
              .yaml_key = "usage.endpoint",
              .help = "host:port of tailor-controller's usage stream (empty: usage is only "
                      "exposed as metrics)."},
             &o.usage_endpoint);
  schema.add({.flag = "usage-ca-file",
              .yaml_key = "usage.caFile",
              .help = "The usage CA (PEM) that signed the controller's certificate."},
             &o.usage_ca_file);
  schema.add({.flag = "usage-cert-file",
              .yaml_key = "usage.certFile",
              .help = "This agent's client certificate (PEM), subject "
                      "CN=system:node:<nodeName>, O=system:nodes, from the usage CA: the "
                      "controller takes windows only for pods bound to that node."},
             &o.usage_cert_file);
  schema.add({.flag = "usage-key-file",
              .yaml_key = "usage.keyFile",
              .help = "Private key of --usage-cert-file (PEM)."},
             &o.usage_key_file);
  schema.add({.flag = "usage-server-name",
              .yaml_key = "usage.serverName",
              .help = "Name the controller's certificate must hold (empty: the endpoint's host)."},
             &o.usage_server_name);
  schema.add({.flag = "usage-insecure",
              .yaml_key = "usage.insecure",
              .help = "Stream plaintext, unauthenticated (a controller started with "
                      "--usage-insecure). Tests and development only."},
             &o.usage_insecure);
  schema.add({.flag = "usage-sample-interval",
              .yaml_key = "usage.sampleInterval",
              .help = "How often each container's cgroup is read."},
             &o.usage_sample_interval);
  schema.add({.flag = "usage-report-interval",
              .yaml_key = "usage.reportInterval",
              .help = "Length of the usage windows sent to the controller (samples are "
                      "aggregated locally)."},
             &o.usage_report_interval);
}

void validate(const AgentOptions& o) {
  if (o.node_name.empty()) throw kube::config::ConfigError("--node-name is required");
  if (o.actuation == Actuation::Agent && o.checkpoint_dir.empty()) {
    throw kube::config::ConfigError("--checkpoint-dir is required with --actuation=agent");
  }
  if (o.resize_retry_period <= kube::Duration::zero()) {
    throw kube::config::ConfigError("--resize-retry-period must be positive");
  }
  const bool usage_tls =
      !o.usage_ca_file.empty() && !o.usage_cert_file.empty() && !o.usage_key_file.empty();
  if (!o.usage_endpoint.empty() && !o.usage_insecure && !usage_tls) {
    throw kube::config::ConfigError(
        "--usage-endpoint needs --usage-ca-file, --usage-cert-file and --usage-key-file (the "
        "controller accepts only authenticated agents), or --usage-insecure");
  }
  if (o.usage_sample_interval <= kube::Duration::zero() ||
      o.usage_report_interval < o.usage_sample_interval) {
    throw kube::config::ConfigError(
        "--usage-sample-interval must be positive and at most --usage-report-interval");
  }
}

}  // namespace tailor::node
