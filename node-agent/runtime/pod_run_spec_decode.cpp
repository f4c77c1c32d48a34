// decode_pod_run_spec / decode_runtime_pod: what running a container needs, read from the pod JSON
// (the typed model keeps only what resizing needs).
#include <boost/json.hpp>

#include "kube/model/decode.h"
#include "node-agent/runtime/pod_runtime.h"

namespace tailor::node::runtime {
namespace {
namespace bj = boost::json;

const bj::value* member(const bj::object& object, std::string_view key) {
  const auto* value = object.if_contains(key);
  return value && !value->is_null() ? value : nullptr;
}

const bj::object& as_object(const bj::value& value, const std::string& path) {
  if (!value.is_object()) throw kube::DecodeError(path, "expected an object");
  return value.get_object();
}

std::string as_string(const bj::value& value, const std::string& path) {
  if (!value.is_string()) throw kube::DecodeError(path, "expected a string");
  return std::string(value.get_string());
}

std::string string_member(const bj::object& object, std::string_view key, const std::string& path) {
  const auto* value = member(object, key);
  return value ? as_string(*value, path + "." + std::string(key)) : std::string();
}

std::vector<std::string> strings(const bj::object& object, std::string_view key,
                                 const std::string& path) {
  std::vector<std::string> out;
  const auto* value = member(object, key);
  if (!value) return out;
  const std::string here = path + "." + std::string(key);
  if (!value->is_array()) throw kube::DecodeError(here, "expected an array of strings");
  for (std::size_t i = 0; i < value->get_array().size(); ++i) {
    out.push_back(as_string(value->get_array()[i], here + "[" + std::to_string(i) + "]"));
  }
  return out;
}

// Literal values and fieldRefs; other valueFrom sources (secretKeyRef, configMapKeyRef,
// resourceFieldRef) are kept as unsupported, so that the container is refused with a clear
// message (CreateContainerConfigError) instead of starting without a variable it asked for.
EnvVarSpec env_var(const bj::object& entry, const std::string& here) {
  EnvVarSpec out{.name = string_member(entry, "name", here)};
  if (out.name.empty())
    throw kube::DecodeError(here + ".name", "an environment variable needs a name");
  const auto* from = member(entry, "valueFrom");
  if (!from) {
    out.value = string_member(entry, "value", here);
    return out;
  }
  const auto& source = as_object(*from, here + ".valueFrom");
  const auto* field = member(source, "fieldRef");
  if (!field) {
    for (const auto& [key, value] : source) out.unsupported = "valueFrom." + std::string(key);
    return out;
  }
  out.field_path = string_member(as_object(*field, here + ".valueFrom.fieldRef"), "fieldPath",
                                 here + ".valueFrom.fieldRef");
  return out;
}

template <typename T, typename Decode>
std::vector<T> each(const bj::object& object, std::string_view key, const std::string& path,
                    Decode decode) {
  std::vector<T> out;
  const auto* value = member(object, key);
  if (!value) return out;
  const std::string here = path + "." + std::string(key);
  if (!value->is_array()) throw kube::DecodeError(here, "expected an array");
  for (std::size_t i = 0; i < value->get_array().size(); ++i) {
    const std::string at = here + "[" + std::to_string(i) + "]";
    out.push_back(decode(as_object(value->get_array()[i], at), at));
  }
  return out;
}

std::vector<EnvVarSpec> env(const bj::object& container, const std::string& path) {
  return each<EnvVarSpec>(container, "env", path, env_var);
}

std::optional<std::int64_t> integer_member(const bj::object& object, std::string_view key,
                                           const std::string& path) {
  const auto* value = member(object, key);
  if (!value) return std::nullopt;
  if (!value->is_int64() && !value->is_uint64()) {
    throw kube::DecodeError(path + "." + std::string(key), "expected an integer");
  }
  return value->to_number<std::int64_t>();
}

std::optional<bool> bool_member(const bj::object& object, std::string_view key,
                                const std::string& path) {
  const auto* value = member(object, key);
  if (!value) return std::nullopt;
  if (!value->is_bool())
    throw kube::DecodeError(path + "." + std::string(key), "expected a boolean");
  return value->get_bool();
}

VolumeMountSpec volume_mount(const bj::object& entry, const std::string& here) {
  if (!string_member(entry, "subPath", here).empty()) {
    throw kube::DecodeError(here + ".subPath", "subPath is not supported here");
  }
  return {.name = string_member(entry, "name", here),
          .mount_path = string_member(entry, "mountPath", here),
          .read_only = bool_member(entry, "readOnly", here).value_or(false)};
}

KeyToPath key_to_path(const bj::object& item, const std::string& here) {
  return {.key = string_member(item, "key", here), .path = string_member(item, "path", here)};
}

KeyToPath field_item(const bj::object& item, const std::string& here) {
  const auto* field = member(item, "fieldRef");
  if (!field) throw kube::DecodeError(here, "only fieldRef items are supported here");
  return {.key = string_member(as_object(*field, here + ".fieldRef"), "fieldPath", here),
          .path = string_member(item, "path", here)};
}

// A configMap or secret source; `name_key`: "name", or a secret volume's "secretName".
ProjectionSource data_source(ProjectionSource::Kind kind, const bj::object& source,
                             std::string_view name_key, const std::string& here) {
  return {.kind = kind,
          .name = string_member(source, name_key, here),
          .items = each<KeyToPath>(source, "items", here, key_to_path),
          .optional = bool_member(source, "optional", here).value_or(false)};
}

ProjectionSource token_source(const bj::object& source, const std::string& here) {
  return {
      .kind = ProjectionSource::Kind::ServiceAccountToken,
      .token_path = string_member(source, "path", here),
      .token_expiration_seconds = integer_member(source, "expirationSeconds", here).value_or(3600),
      .token_audience = string_member(source, "audience", here)};
}

ProjectionSource projection(const bj::object& entry, const std::string& here) {
  using Kind = ProjectionSource::Kind;
  if (const auto* v = member(entry, "serviceAccountToken")) {
    return token_source(as_object(*v, here + ".serviceAccountToken"),
                        here + ".serviceAccountToken");
  }
  if (const auto* v = member(entry, "configMap")) {
    return data_source(Kind::ConfigMap, as_object(*v, here), "name", here + ".configMap");
  }
  if (const auto* v = member(entry, "secret")) {
    return data_source(Kind::Secret, as_object(*v, here), "name", here + ".secret");
  }
  if (const auto* v = member(entry, "downwardAPI")) {
    return {
        .kind = Kind::DownwardAPI,
        .items = each<KeyToPath>(as_object(*v, here), "items", here + ".downwardAPI", field_item)};
  }
  throw kube::DecodeError(here, "unsupported projected volume source");
}

std::uint32_t default_mode(const bj::object& source, const std::string& here) {
  const auto mode = integer_member(source, "defaultMode", here);
  if (mode && (*mode < 0 || *mode > 0777)) {
    throw kube::DecodeError(here + ".defaultMode", "must be a number between 0 and 0777 (octal)");
  }
  return static_cast<std::uint32_t>(mode.value_or(0644));
}

// The volume's files, when its source is one that writes files.
bool files_volume(const bj::object& entry, const std::string& here, VolumeSpec& out) {
  using Kind = ProjectionSource::Kind;
  const std::pair<const char*, Kind> single[] = {
      {"secret", Kind::Secret}, {"configMap", Kind::ConfigMap}, {"downwardAPI", Kind::DownwardAPI}};
  for (const auto& [key, kind] : single) {
    const auto* v = member(entry, key);
    if (!v) continue;
    const std::string at = here + "." + key;
    const auto& source = as_object(*v, at);
    out.sources.push_back(
        kind == Kind::DownwardAPI
            ? ProjectionSource{.kind = kind,
                               .items = each<KeyToPath>(source, "items", at, field_item)}
            : data_source(kind, source, kind == Kind::Secret ? "secretName" : "name", at));
    out.default_mode = default_mode(source, at);
    return true;
  }
  const auto* projected = member(entry, "projected");
  if (!projected) return false;
  const std::string at = here + ".projected";
  const auto& source = as_object(*projected, at);
  out.sources = each<ProjectionSource>(source, "sources", at, projection);
  out.default_mode = default_mode(source, at);
  return true;
}

VolumeSpec volume(const bj::object& entry, const std::string& here) {
  VolumeSpec out{.name = string_member(entry, "name", here)};
  if (files_volume(entry, here, out)) {
    out.kind = VolumeSpec::Kind::Files;
  } else if (const auto* host = member(entry, "hostPath")) {
    const auto& source = as_object(*host, here + ".hostPath");
    out.kind = VolumeSpec::Kind::HostPath;
    out.host_path = string_member(source, "path", here + ".hostPath");
    out.host_path_type = string_member(source, "type", here + ".hostPath");
  } else if (member(entry, "emptyDir")) {
    out.kind = VolumeSpec::Kind::EmptyDir;
  } else {
    for (const auto& [key, value] : entry) {
      if (key != "name") out.unsupported = std::string(key);
    }
  }
  return out;
}

// The port of an httpGet: a number, or the name of one of the container's ports.
int probe_port(const bj::value& port, const bj::object& container, const std::string& here) {
  if (port.is_int64() || port.is_uint64()) return port.to_number<int>();
  const std::string name = as_string(port, here);
  if (const auto* ports = member(container, "ports"); ports && ports->is_array()) {
    for (const bj::value& p : ports->get_array()) {
      if (p.is_object() && p.get_object().if_contains("name") &&
          p.get_object().at("name") == bj::value(name)) {
        return integer_member(p.get_object(), "containerPort", here).value_or(0);
      }
    }
  }
  throw kube::DecodeError(here, "no container port named \"" + name + "\"");
}

// The port and host of an httpGet or tcpSocket handler.
ProbeSpec socket_handler(ProbeSpec::Kind kind, const bj::object& action,
                         const bj::object& container, const std::string& here) {
  const auto* port = member(action, "port");
  if (!port) throw kube::DecodeError(here + ".port", "a probe needs a port");
  ProbeSpec out{.kind = kind, .port = probe_port(*port, container, here + ".port")};
  out.host = string_member(action, "host", here);
  return out;
}

// The probe's handler: httpGet, tcpSocket or exec; nullopt for one this node does not run (grpc).
std::optional<ProbeSpec> probe_handler(const bj::object& probe, const bj::object& container,
                                       const std::string& here) {
  if (const auto* get = member(probe, "httpGet")) {
    const auto& http = as_object(*get, here + ".httpGet");
    ProbeSpec out = socket_handler(ProbeSpec::Kind::HttpGet, http, container, here + ".httpGet");
    if (const std::string p = string_member(http, "path", here); !p.empty()) out.path = p;
    return out;
  }
  if (const auto* tcp = member(probe, "tcpSocket")) {
    return socket_handler(ProbeSpec::Kind::TcpSocket, as_object(*tcp, here + ".tcpSocket"),
                          container, here + ".tcpSocket");
  }
  if (const auto* exec = member(probe, "exec")) {
    const std::string path = here + ".exec";
    ProbeSpec out{.kind = ProbeSpec::Kind::Exec};
    out.command = strings(as_object(*exec, path), "command", path);
    if (out.command.empty()) throw kube::DecodeError(path + ".command", "must not be empty");
    return out;
  }
  return std::nullopt;
}

std::optional<ProbeSpec> probe(const bj::object& container, std::string_view key,
                               const std::string& path) {
  const auto* value = member(container, key);
  if (!value) return std::nullopt;
  const std::string here = path + "." + std::string(key);
  const auto& probe = as_object(*value, here);
  std::optional<ProbeSpec> handler = probe_handler(probe, container, here);
  if (!handler) return std::nullopt;
  ProbeSpec out = std::move(*handler);
  auto set = [&](const char* name, std::int64_t& field) {
    if (const auto v = integer_member(probe, name, here)) field = *v;
  };
  set("initialDelaySeconds", out.initial_delay_seconds);
  set("periodSeconds", out.period_seconds);
  set("timeoutSeconds", out.timeout_seconds);
  set("successThreshold", out.success_threshold);
  set("failureThreshold", out.failure_threshold);
  return out;
}

// runAsUser, runAsGroup and runAsNonRoot of a pod's or a container's securityContext.
SecurityIdentity security_identity(const bj::object& owner, const std::string& path) {
  const auto* value = member(owner, "securityContext");
  if (!value) return {};
  const std::string here = path.empty() ? "securityContext" : path + ".securityContext";
  const auto& context = as_object(*value, here);
  return {integer_member(context, "runAsUser", here), integer_member(context, "runAsGroup", here),
          bool_member(context, "runAsNonRoot", here)};
}

ContainerRunSpec container_run_spec(const bj::value& value, const std::string& path) {
  const auto& container = as_object(value, path);
  ContainerRunSpec out;
  out.name = string_member(container, "name", path);
  out.command = strings(container, "command", path);
  out.args = strings(container, "args", path);
  out.env = env(container, path);
  out.mounts = each<VolumeMountSpec>(container, "volumeMounts", path, volume_mount);
  out.readiness = probe(container, "readinessProbe", path);
  out.liveness = probe(container, "livenessProbe", path);
  out.image_pull_policy = string_member(container, "imagePullPolicy", path);
  out.security = security_identity(container, path);
  return out;
}

std::optional<PodDnsConfig> dns_config(const bj::object& spec) {
  const auto* value = member(spec, "dnsConfig");
  if (!value) return std::nullopt;
  const auto& config = as_object(*value, "spec.dnsConfig");
  PodDnsConfig out{.nameservers = strings(config, "nameservers", "spec.dnsConfig"),
                   .searches = strings(config, "searches", "spec.dnsConfig")};
  out.options = each<PodDnsOption>(config, "options", "spec.dnsConfig",
                                   [](const bj::object& option, const std::string& path) {
                                     PodDnsOption o{.name = string_member(option, "name", path)};
                                     if (const auto* v = member(option, "value"))
                                       o.value = as_string(*v, path + ".value");
                                     return o;
                                   });
  return out;
}

PodRunSpec run_spec(const bj::value& root) {
  PodRunSpec out;
  const auto& pod = as_object(root, "");
  const auto* spec_value = member(pod, "spec");
  if (!spec_value) throw kube::DecodeError("spec", "a pod needs a spec");
  const auto& spec = as_object(*spec_value, "spec");
  if (const auto* containers = member(spec, "containers")) {
    if (!containers->is_array()) throw kube::DecodeError("spec.containers", "expected an array");
    for (std::size_t i = 0; i < containers->get_array().size(); ++i) {
      out.containers.push_back(container_run_spec(containers->get_array()[i],
                                                  "spec.containers[" + std::to_string(i) + "]"));
    }
  }
  if (const auto* grace = member(spec, "terminationGracePeriodSeconds")) {
    if (!grace->is_int64() && !grace->is_uint64()) {
      throw kube::DecodeError("spec.terminationGracePeriodSeconds", "expected an integer");
    }
    const std::int64_t seconds = grace->to_number<std::int64_t>();
    if (seconds < 0) throw kube::DecodeError("spec.terminationGracePeriodSeconds", "must be >= 0");
    out.termination_grace_period_seconds = seconds;
  }
  out.volumes = each<VolumeSpec>(spec, "volumes", "spec", volume);
  out.service_account_name = string_member(spec, "serviceAccountName", "spec");
  out.host_network = bool_member(spec, "hostNetwork", "spec").value_or(false);
  out.enable_service_links = bool_member(spec, "enableServiceLinks", "spec").value_or(true);
  out.dns_policy = string_member(spec, "dnsPolicy", "spec");
  out.dns_config = dns_config(spec);
  out.security = security_identity(spec, "spec");
  return out;
}

bj::value parse(std::string_view json) {
  boost::system::error_code error;
  bj::value root = bj::parse(json, error);
  if (error) throw kube::DecodeError("", "malformed JSON: " + error.message());
  return root;
}

}  // namespace

PodRunSpec decode_pod_run_spec(std::string_view pod_json) { return run_spec(parse(pod_json)); }

RuntimePod decode_runtime_pod(std::string_view pod_json) {
  RuntimePod out;
  out.pod = kube::decode<kube::Pod>(kube::JsonInput(pod_json));
  out.run = decode_pod_run_spec(pod_json);
  return out;
}

}  // namespace tailor::node::runtime
