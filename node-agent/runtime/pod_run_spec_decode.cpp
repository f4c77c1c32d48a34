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

// Only literal values: valueFrom (field refs, secrets) needs the API and is left out.
std::vector<std::pair<std::string, std::string>> env(const bj::object& container,
                                                     const std::string& path) {
  std::vector<std::pair<std::string, std::string>> out;
  const auto* value = member(container, "env");
  if (!value) return out;
  if (!value->is_array()) throw kube::DecodeError(path + ".env", "expected an array");
  for (std::size_t i = 0; i < value->get_array().size(); ++i) {
    const std::string here = path + ".env[" + std::to_string(i) + "]";
    const auto& entry = as_object(value->get_array()[i], here);
    const std::string name = string_member(entry, "name", here);
    if (name.empty())
      throw kube::DecodeError(here + ".name", "an environment variable needs a name");
    if (member(entry, "valueFrom")) continue;
    out.emplace_back(name, string_member(entry, "value", here));
  }
  return out;
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
  out.image_pull_policy = string_member(container, "imagePullPolicy", path);
  out.security = security_identity(container, path);
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
