#include "node-agent/runtime/container_env.h"

#include <set>

namespace tailor::node::runtime {

std::string expand_references(std::string_view text,
                              const std::map<std::string, std::string, std::less<>>& vars) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '$' || i + 1 == text.size()) {
      out += text[i];
      continue;
    }
    if (text[i + 1] == '$') {  // $$: an escaped $
      out += '$';
      ++i;
      continue;
    }
    const std::size_t close = text[i + 1] == '(' ? text.find(')', i + 2) : std::string_view::npos;
    if (close == std::string_view::npos) {
      out += text[i];
      continue;
    }
    const std::string_view name = text.substr(i + 2, close - i - 2);
    const auto it = vars.find(name);
    out += it != vars.end() ? std::string_view(it->second) : text.substr(i, close - i + 1);
    i = close;
  }
  return out;
}

std::string pod_field(const RuntimePod& pod, const PodRuntimeOptions& options,
                      std::string_view field_path, const std::string& pod_ip) {
  const auto& meta = pod.pod.metadata;
  if (field_path == "metadata.name") return meta.name;
  if (field_path == "metadata.namespace") return meta.namespace_;
  if (field_path == "metadata.uid") return meta.uid;
  if (field_path == "spec.nodeName") return pod.pod.spec.node_name;
  if (field_path == "spec.serviceAccountName") return pod.run.service_account_name;
  if (field_path == "status.podIP") return pod_ip;
  if (field_path == "status.hostIP") return options.host_ip;
  throw ContainerConfigError("unsupported fieldPath: " + std::string(field_path));
}

namespace {

// makeEnvVariableName.
std::string variable_name(std::string_view name) {
  std::string out;
  for (char c : name) {
    out += c == '-' ? '_' : static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
  }
  return out;
}

std::string lower(std::string text) {
  for (char& c : text) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return text;
}

// net.JoinHostPort: an IPv6 address in brackets.
std::string host_port(const std::string& host, std::uint16_t port) {
  const std::string p = std::to_string(port);
  return host.find(':') == std::string::npos ? host + ":" + p : "[" + host + "]:" + p;
}

// The `kubernetes` Service as the agent reads it (its ClusterIP and first port, named https as
// kube-apiserver names it), or the agent's own API address.
std::optional<ServiceLink> master_service(const PodRuntimeOptions& options) {
  ServiceAddress address{.host = options.api_host, .port = options.api_port};
  if (options.kubernetes_service) {
    std::optional<ServiceAddress> service;
    try {
      service = options.kubernetes_service();
    } catch (const std::exception& e) {
      // The kubelet's words when its Service lister has nothing to give.
      throw ContainerConfigError(
          std::string("services have not yet been read at least once, cannot construct envvars: ") +
          e.what());
    }
    if (!service) return std::nullopt;
    address = *service;
  }
  if (address.host.empty()) return std::nullopt;
  return ServiceLink{.name = "kubernetes",
                     .cluster_ip = address.host,
                     .ports = {{.name = "https", .port = address.port, .protocol = "TCP"}}};
}

}  // namespace

Environment service_link_variables(const std::vector<ServiceLink>& services) {
  Environment out;
  for (const ServiceLink& service : services) {
    if (service.cluster_ip.empty() || service.cluster_ip == "None" || service.ports.empty()) {
      continue;
    }
    const std::string prefix = variable_name(service.name);
    const std::string& ip = service.cluster_ip;
    out.emplace_back(prefix + "_SERVICE_HOST", ip);
    out.emplace_back(prefix + "_SERVICE_PORT", std::to_string(service.ports.front().port));
    for (const ServiceLinkPort& port : service.ports) {
      if (!port.name.empty()) {
        out.emplace_back(prefix + "_SERVICE_PORT_" + variable_name(port.name),
                         std::to_string(port.port));
      }
    }
    for (std::size_t i = 0; i < service.ports.size(); ++i) {
      const ServiceLinkPort& port = service.ports[i];
      const std::string protocol = port.protocol.empty() ? "TCP" : port.protocol;
      const std::string url = lower(protocol) + "://" + host_port(ip, port.port);
      if (i == 0) out.emplace_back(prefix + "_PORT", url);
      const std::string port_prefix =
          prefix + "_PORT_" + std::to_string(port.port) + "_" + variable_name(protocol);
      out.emplace_back(port_prefix, url);
      out.emplace_back(port_prefix + "_PROTO", lower(protocol));
      out.emplace_back(port_prefix + "_PORT", std::to_string(port.port));
      out.emplace_back(port_prefix + "_ADDR", ip);
    }
  }
  return out;
}

std::vector<ServiceLink> pod_service_links(const std::optional<ServiceLink>& master,
                                           const std::vector<ServiceLink>& namespace_services,
                                           bool enable_links) {
  std::map<std::string, ServiceLink> by_name;
  if (master) by_name[master->name] = *master;
  if (enable_links) {
    for (const ServiceLink& service : namespace_services) by_name[service.name] = service;
  }
  std::vector<ServiceLink> out;
  for (auto& [name, service] : by_name) out.push_back(std::move(service));
  return out;
}

Environment service_environment(const PodRuntimeOptions& options, const std::string& ns,
                                bool enable_links) {
  const std::optional<ServiceLink> master = master_service(options);
  std::vector<ServiceLink> local;
  if (enable_links && options.namespace_services) {
    try {
      local = options.namespace_services(ns);
    } catch (const std::exception& e) {
      throw ContainerConfigError(
          std::string("services have not yet been read at least once, cannot construct envvars: ") +
          e.what());
    }
  }
  return service_link_variables(pod_service_links(master, local, enable_links));
}

Environment container_environment(const RuntimePod& pod, const ContainerRunSpec& run,
                                  const PodRuntimeOptions& options, const std::string& pod_ip) {
  // The pod's own variables win: a service variable it defines is left out.
  std::set<std::string, std::less<>> own;
  for (const EnvVarSpec& var : run.env) own.insert(var.name);
  Environment out;
  for (auto& [name, value] :
       service_environment(options, pod.pod.metadata.namespace_, pod.run.enable_service_links)) {
    if (!own.count(name)) out.emplace_back(std::move(name), std::move(value));
  }
  std::map<std::string, std::string, std::less<>> defined(out.begin(), out.end());
  for (const EnvVarSpec& var : run.env) {
    if (!var.unsupported.empty()) {
      throw ContainerConfigError("environment variable \"" + var.name + "\": " + var.unsupported +
                                 " is not supported by this node");
    }
    std::string value = var.field_path.empty() ? expand_references(var.value, defined)
                                               : pod_field(pod, options, var.field_path, pod_ip);
    defined[var.name] = value;
    out.emplace_back(var.name, std::move(value));
  }
  return out;
}

std::vector<std::string> expand_all(const std::vector<std::string>& words, const Environment& env) {
  // A later definition of a name wins, as in the container's environment.
  std::map<std::string, std::string, std::less<>> vars;
  for (const auto& [name, value] : env) vars[name] = value;
  std::vector<std::string> out;
  for (const std::string& word : words) out.push_back(expand_references(word, vars));
  return out;
}

std::vector<cri::Mount> container_mounts(const ContainerRunSpec& run,
                                         const std::map<std::string, std::string>& volume_paths) {
  std::vector<cri::Mount> out;
  for (const VolumeMountSpec& mount : run.mounts) {
    const auto it = volume_paths.find(mount.name);
    if (it == volume_paths.end()) {
      throw ContainerConfigError("unable to find volume \"" + mount.name + "\" for container \"" +
                                 run.name + "\"");
    }
    out.push_back({.container_path = mount.mount_path,
                   .host_path = it->second,
                   .read_only = mount.read_only});
  }
  return out;
}

}  // namespace tailor::node::runtime
