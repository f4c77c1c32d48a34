// Pure: a container's environment and mounts as the kubelet makes them. The environment is the
// service variables (the API server's KUBERNETES_SERVICE_HOST, _PORT, ..., and with
// enableServiceLinks those of every Service of the pod's namespace) that the spec's env does not
// define, then the spec's env in order: fieldRefs read from the pod, literal values with $(VAR)
// references to variables defined before expanded (kubelet's expansion: $$ is a literal $, an
// unknown $(VAR) stays as written). Command and args are expanded with the whole environment.
// Mounts are the container's volumeMounts at the host paths where the node made their volumes.
#pragma once

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "node-agent/cri/cri_client.h"
#include "node-agent/runtime/pod_runtime.h"

namespace tailor::node::runtime {

using Environment = std::vector<std::pair<std::string, std::string>>;

// Why a container cannot be configured (CreateContainerConfigError).
class ContainerConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// `text` with $(NAME) references to `vars` replaced.
std::string expand_references(std::string_view text,
                              const std::map<std::string, std::string, std::less<>>& vars);

// The value of a downward API fieldPath for the pod (metadata.name, metadata.namespace,
// metadata.uid, spec.nodeName, spec.serviceAccountName, status.podIP (`pod_ip`, the IP of the
// pod's sandbox), status.hostIP); throws ContainerConfigError for any other path.
std::string pod_field(const RuntimePod& pod, const PodRuntimeOptions& options,
                      std::string_view field_path, const std::string& pod_ip);

// envvars.FromServices: for each Service with a ClusterIP (not "" nor "None") and a port, in the
// order given, <NAME>_SERVICE_HOST, <NAME>_SERVICE_PORT (the first port),
// <NAME>_SERVICE_PORT_<PORT> for each named port, then the docker-link <NAME>_PORT (the first
// port's URL) and for each port <NAME>_PORT_<port>_<PROTO>, _PROTO, _PORT, _ADDR. NAME: the
// Service's name upper-cased, '-' as
// '_'.
Environment service_link_variables(const std::vector<ServiceLink>& services);

// The Services whose variables a pod gets (the kubelet's getServiceEnvVarMap): the master
// `kubernetes` one, and with `enable_links` each of `namespace_services` (the pod's namespace's;
// one named `kubernetes` there takes the master's place), sorted by name.
std::vector<ServiceLink> pod_service_links(const std::optional<ServiceLink>& master,
                                           const std::vector<ServiceLink>& namespace_services,
                                           bool enable_links);

// The service variables of a pod of namespace `ns`: the API server's at
// options.kubernetes_service() (the `kubernetes` Service's ClusterIP and port, as the kubelet sets
// them; none when there is no such Service), or without it at options.api_host:api_port (none
// without a host); with `enable_links` those of options.namespace_services(ns) too.
Environment service_environment(const PodRuntimeOptions& options, const std::string& ns = "",
                                bool enable_links = false);

Environment container_environment(const RuntimePod& pod, const ContainerRunSpec& run,
                                  const PodRuntimeOptions& options, const std::string& pod_ip);
std::vector<std::string> expand_all(const std::vector<std::string>& words, const Environment& env);

// `volume_paths`: each volume's host path, by volume name. Throws ContainerConfigError for a
// mount of a volume the pod does not have.
std::vector<cri::Mount> container_mounts(const ContainerRunSpec& run,
                                         const std::map<std::string, std::string>& volume_paths);

}  // namespace tailor::node::runtime
