#include "node-agent/runtime/container_env.h"

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

Environment service_environment(const PodRuntimeOptions& options) {
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
    if (!service) return {};
    address = *service;
  }
  if (address.host.empty()) return {};
  const std::string host = address.host;
  const std::string port = std::to_string(address.port);
  const std::string url = "tcp://" + host + ":" + port;
  const std::string prefix = "KUBERNETES_PORT_" + port + "_TCP";
  return {{"KUBERNETES_SERVICE_HOST", host},
          {"KUBERNETES_SERVICE_PORT", port},
          {"KUBERNETES_SERVICE_PORT_HTTPS", port},
          {"KUBERNETES_PORT", url},
          {prefix, url},
          {prefix + "_PROTO", "tcp"},
          {prefix + "_PORT", port},
          {prefix + "_ADDR", host}};
}

Environment container_environment(const RuntimePod& pod, const ContainerRunSpec& run,
                                  const PodRuntimeOptions& options, const std::string& pod_ip) {
  Environment out = service_environment(options);
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
