#include "node-agent/cri/cri_messages.h"

namespace tailor::node::cri {
namespace v1 = ::runtime::v1;

namespace {

template <typename ProtoMap>
void copy_map(ProtoMap& out, const std::map<std::string, std::string>& in) {
  for (const auto& [key, value] : in) out[key] = value;
}

template <typename ProtoMap>
std::map<std::string, std::string> to_map(const ProtoMap& in) {
  return {in.begin(), in.end()};
}

v1::NamespaceMode to_proto(NamespaceMode mode) {
  switch (mode) {
    case NamespaceMode::Pod:
      return v1::POD;
    case NamespaceMode::Container:
      return v1::CONTAINER;
    case NamespaceMode::Node:
      return v1::NODE;
  }
  return v1::POD;
}

}  // namespace

void fill(v1::LinuxContainerResources& out, const LinuxResources& in) {
  out.set_cpu_period(in.cpu_period);
  out.set_cpu_quota(in.cpu_quota);
  out.set_cpu_shares(in.cpu_shares);
  out.set_memory_limit_in_bytes(in.memory_limit_in_bytes);
  copy_map(*out.mutable_unified(), in.unified);
}

LinuxResources from_proto(const v1::LinuxContainerResources& in) {
  LinuxResources out;
  out.cpu_period = in.cpu_period();
  out.cpu_quota = in.cpu_quota();
  out.cpu_shares = in.cpu_shares();
  out.memory_limit_in_bytes = in.memory_limit_in_bytes();
  out.unified = to_map(in.unified());
  return out;
}

void fill(v1::PodSandboxConfig& out, const PodSandboxSpec& in) {
  auto& metadata = *out.mutable_metadata();
  metadata.set_name(in.name);
  metadata.set_uid(in.uid);
  metadata.set_namespace_(in.ns);
  metadata.set_attempt(in.attempt);
  out.set_hostname(in.hostname);
  out.set_log_directory(in.log_directory);
  copy_map(*out.mutable_labels(), in.labels);
  copy_map(*out.mutable_annotations(), in.annotations);
  auto& linux = *out.mutable_linux();
  linux.set_cgroup_parent(in.cgroup_parent);
  auto& namespaces = *linux.mutable_security_context()->mutable_namespace_options();
  namespaces.set_network(to_proto(in.network));
  // Kubernetes pods get a private PID namespace per container and a shared IPC namespace.
  namespaces.set_pid(v1::CONTAINER);
  namespaces.set_ipc(v1::POD);
  if (in.resources) fill(*linux.mutable_resources(), *in.resources);
  if (in.dns) {
    auto& dns = *out.mutable_dns_config();
    for (const auto& server : in.dns->servers) dns.add_servers(server);
    for (const auto& search : in.dns->searches) dns.add_searches(search);
    for (const auto& option : in.dns->options) dns.add_options(option);
  }
}

void fill(v1::ContainerConfig& out, const ContainerSpec& in) {
  out.mutable_metadata()->set_name(in.name);
  out.mutable_metadata()->set_attempt(in.attempt);
  out.mutable_image()->set_image(in.image);
  out.mutable_image()->set_user_specified_image(in.image);
  for (const auto& c : in.command) out.add_command(c);
  for (const auto& a : in.args) out.add_args(a);
  for (const auto& [key, value] : in.envs) {
    auto& env = *out.add_envs();
    env.set_key(key);
    env.set_value(value);
  }
  for (const auto& m : in.mounts) {
    auto& mount = *out.add_mounts();
    mount.set_container_path(m.container_path);
    mount.set_host_path(m.host_path);
    mount.set_readonly(m.read_only);
  }
  out.set_log_path(in.log_path);
  copy_map(*out.mutable_labels(), in.labels);
  copy_map(*out.mutable_annotations(), in.annotations);
  fill(*out.mutable_linux()->mutable_resources(), in.resources);
  auto& security = *out.mutable_linux()->mutable_security_context();
  security.mutable_namespace_options()->set_pid(v1::CONTAINER);
  if (in.run_as_user) security.mutable_run_as_user()->set_value(*in.run_as_user);
  if (in.run_as_group) security.mutable_run_as_group()->set_value(*in.run_as_group);
}

void fill(v1::ContainerFilter& out, const ContainerFilter& in) {
  out.set_id(in.id);
  out.set_pod_sandbox_id(in.pod_sandbox_id);
  if (in.state) out.mutable_state()->set_state(to_proto(*in.state));
  copy_map(*out.mutable_label_selector(), in.label_selector);
}

ContainerState from_proto(v1::ContainerState state) {
  switch (state) {
    case v1::CONTAINER_CREATED:
      return ContainerState::Created;
    case v1::CONTAINER_RUNNING:
      return ContainerState::Running;
    case v1::CONTAINER_EXITED:
      return ContainerState::Exited;
    default:
      return ContainerState::Unknown;
  }
}

v1::ContainerState to_proto(ContainerState state) {
  switch (state) {
    case ContainerState::Created:
      return v1::CONTAINER_CREATED;
    case ContainerState::Running:
      return v1::CONTAINER_RUNNING;
    case ContainerState::Exited:
      return v1::CONTAINER_EXITED;
    case ContainerState::Unknown:
      break;
  }
  return v1::CONTAINER_UNKNOWN;
}

ContainerStatus from_proto(const v1::ContainerStatus& in) {
  ContainerStatus out;
  out.id = in.id();
  out.name = in.metadata().name();
  out.attempt = in.metadata().attempt();
  out.state = from_proto(in.state());
  out.created_at_ns = in.created_at();
  out.started_at_ns = in.started_at();
  out.finished_at_ns = in.finished_at();
  out.exit_code = in.exit_code();
  out.reason = in.reason();
  out.message = in.message();
  out.image = in.image().image();
  out.image_ref = in.image_ref();
  if (in.has_resources() && in.resources().has_linux()) {
    out.resources = from_proto(in.resources().linux());
  }
  out.labels = to_map(in.labels());
  return out;
}

ContainerSummary from_proto(const v1::Container& in) {
  ContainerSummary out;
  out.id = in.id();
  out.pod_sandbox_id = in.pod_sandbox_id();
  out.name = in.metadata().name();
  out.attempt = in.metadata().attempt();
  out.state = from_proto(in.state());
  out.labels = to_map(in.labels());
  return out;
}

SandboxStatus from_proto(const v1::PodSandboxStatus& in) {
  SandboxStatus out;
  out.id = in.id();
  out.ready = in.state() == v1::SANDBOX_READY;
  out.ip = in.network().ip();
  for (const auto& ip : in.network().additional_ips()) out.additional_ips.push_back(ip.ip());
  return out;
}

}  // namespace tailor::node::cri
