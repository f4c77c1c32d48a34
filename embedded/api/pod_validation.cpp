#include "embedded/api/pod_validation.h"

#include <arpa/inet.h>

#include <algorithm>
#include <set>

#include "embedded/api/validation.h"
#include "embedded/resize/resource_json.h"
#include "embedded/resize/resource_requirements.h"
#include "embedded/storage/object_meta.h"

namespace tailor::embedded {
namespace {

using Errors = std::vector<FieldCause>;

void append(Errors& to, const Errors& more) { to.insert(to.end(), more.begin(), more.end()); }

void canonicalize_list(bj::value* list) {
  if (!list || !list->is_object()) return;
  for (auto& [name, value] : list->as_object()) {
    std::string error;
    std::optional<kube::Quantity> q = decode_quantity(value, &error);
    if (!q) throw bad_request("Pod in version \"v1\" cannot be handled as a Pod: " + error);
    value = q->to_string();
  }
}

void canonicalize_requirements(bj::value* resources) {
  if (!resources || !resources->is_object()) return;
  canonicalize_list(resources->as_object().if_contains("requests"));
  canonicalize_list(resources->as_object().if_contains("limits"));
}

std::string string_member(const bj::value& object, std::string_view key) {
  const bj::value* v = member(&object, key);
  return v && v->is_string() ? std::string(v->as_string()) : "";
}

// An integer field, nullopt when absent or not an integer.
std::optional<std::int64_t> int_member(const bj::value* object, std::string_view key) {
  const bj::value* v = member(object, key);
  if (!v || !v->is_number()) return std::nullopt;
  boost::system::error_code ec;
  std::int64_t n = v->to_number<std::int64_t>(ec);
  return ec ? std::nullopt : std::optional<std::int64_t>(n);
}

Errors port_errors(const bj::value& port, const std::string& path, std::set<std::string>& names) {
  Errors errors;
  std::string name = string_member(port, "name");
  if (!name.empty()) {
    std::vector<std::string> why = port_name_errors(name);
    for (const std::string& w : why) errors.push_back(invalid_value(path + ".name", name, w));
    if (why.empty() && !names.insert(name).second) {
      errors.push_back(duplicate(path + ".name", name));
    }
  }
  std::int64_t container_port = int_member(&port, "containerPort").value_or(0);
  if (container_port == 0) {
    errors.push_back(required(path + ".containerPort", ""));
  } else if (container_port < 1 || container_port > 65535) {
    errors.push_back(invalid_number(path + ".containerPort", container_port, kPortRange));
  }
  std::int64_t host_port = int_member(&port, "hostPort").value_or(0);
  if (host_port != 0 && (host_port < 1 || host_port > 65535)) {
    errors.push_back(invalid_number(path + ".hostPort", host_port, kPortRange));
  }
  std::string protocol = string_member(port, "protocol");
  if (protocol.empty()) {
    errors.push_back(required(path + ".protocol", ""));
  } else if (protocol != "TCP" && protocol != "UDP" && protocol != "SCTP") {
    errors.push_back(not_supported(path + ".protocol", protocol, {"SCTP", "TCP", "UDP"}));
  }
  return errors;
}

Errors ports_errors(const bj::value& container, const std::string& path) {
  Errors errors;
  const bj::value* ports = member(&container, "ports");
  if (!ports || !ports->is_array()) return errors;
  std::set<std::string> names;
  for (std::size_t i = 0; i < ports->as_array().size(); ++i) {
    append(errors,
           port_errors(ports->as_array()[i], path + ".ports[" + std::to_string(i) + "]", names));
  }
  return errors;
}

// validateHandler: exactly one of the probe's handlers.
Errors handler_errors(const bj::value& probe, const std::string& path) {
  Errors errors;
  int handlers = 0;
  for (std::string_view kind : {"exec", "httpGet", "tcpSocket", "grpc"}) {
    const bj::value* h = member(&probe, kind);
    if (!h || h->is_null()) continue;
    if (handlers++ > 0) {
      errors.push_back(
          forbidden(path + "." + std::string(kind), "may not specify more than 1 handler type"));
    }
  }
  if (handlers == 0) errors.push_back(required(path, "must specify a handler type"));
  return errors;
}

// validateProbe, and for liveness and startup probes a successThreshold of 1.
Errors probe_errors(const bj::value& container, std::string_view kind, const std::string& path) {
  Errors errors;
  const bj::value* probe = member(&container, kind);
  if (!probe || probe->is_null()) return errors;
  const std::string at = path + "." + std::string(kind);
  errors = handler_errors(*probe, at);
  for (std::string_view field : {"initialDelaySeconds", "timeoutSeconds", "periodSeconds",
                                 "successThreshold", "failureThreshold"}) {
    std::optional<std::int64_t> v = int_member(probe, field);
    if (v && *v < 0) {
      errors.push_back(
          invalid_number(at + "." + std::string(field), *v, "must be greater than or equal to 0"));
    }
  }
  std::optional<std::int64_t> success = int_member(probe, "successThreshold");
  if (kind != "readinessProbe" && success && *success != 1) {
    errors.push_back(invalid_number(at + ".successThreshold", *success, "must be 1"));
  }
  return errors;
}

// validateContainerCommon: name, image, ports, resources.
Errors common_errors(const bj::value& container, const std::string& path) {
  Errors errors;
  std::string name = string_member(container, "name");
  if (name.empty()) {
    errors.push_back(required(path + ".name", ""));
  } else if (std::string why = dns1123_label_error(name); !why.empty()) {
    errors.push_back(invalid_value(path + ".name", name, why));
  }
  if (string_member(container, "image").empty()) errors.push_back(required(path + ".image", ""));
  append(errors, ports_errors(container, path));
  append(errors,
         validate_resource_requirements(member(&container, "resources"), path + ".resources"));
  return errors;
}

// validateContainers (regular containers) and validateInitContainers; `names` holds the names
// seen so far (the regular containers' when the init containers are checked).
Errors list_errors(const bj::object& pod, const std::string& prefix, std::string_view list,
                   std::set<std::string>& names) {
  Errors errors;
  const bj::array& containers = container_list(pod, list);
  const bool init = list == "initContainers";
  for (std::size_t i = 0; i < containers.size(); ++i) {
    const std::string path = prefix + "spec." + std::string(list) + "[" + std::to_string(i) + "]";
    append(errors, common_errors(containers[i], path));
    std::string name = string_member(containers[i], "name");
    if (names.contains(name)) {
      errors.push_back(duplicate(path + ".name", name));
    } else if (!init || !name.empty()) {
      names.insert(name);
    }
    for (std::string_view probe : {"livenessProbe", "readinessProbe", "startupProbe"}) {
      append(errors, probe_errors(containers[i], probe, path));
    }
  }
  return errors;
}

constexpr std::size_t kMaxDnsNameservers = 3;
constexpr std::size_t kMaxDnsSearchPaths = 32;
constexpr std::size_t kMaxDnsSearchListChars = 2048;

std::vector<std::string> string_list(const bj::value* list) {
  std::vector<std::string> out;
  if (!list || !list->is_array()) return out;
  for (const bj::value& v : list->as_array())
    out.push_back(v.is_string() ? v.as_string().c_str() : "");
  return out;
}

// field.Invalid of a []string, printed as Go's %#v prints it.
FieldCause invalid_list(std::string field, const std::vector<std::string>& values,
                        const std::string& why) {
  std::string printed = "[]string{";
  for (std::size_t i = 0; i < values.size(); ++i) {
    printed += (i ? ", \"" : "\"") + values[i] + "\"";
  }
  return {"FieldValueInvalid", "Invalid value: " + printed + "}: " + why, std::move(field)};
}

bool ip_address(const std::string& text) {
  in_addr v4{};
  in6_addr v6{};
  return ::inet_pton(AF_INET, text.c_str(), &v4) == 1 ||
         ::inet_pton(AF_INET6, text.c_str(), &v6) == 1;
}

// validateDNSPolicy and validatePodDNSConfig.
Errors dns_errors(const bj::object& pod, const std::string& prefix) {
  Errors errors;
  const bj::value* spec = pod.if_contains("spec");
  const std::string policy = spec ? string_member(*spec, "dnsPolicy") : "";
  const std::string policy_path = prefix + "spec.dnsPolicy";
  static const std::vector<std::string> kPolicies = {"ClusterFirst", "ClusterFirstWithHostNet",
                                                     "Default", "None"};
  // "" : not defaulted (a template validated before its defaults); the API defaults it.
  if (!policy.empty() && std::find(kPolicies.begin(), kPolicies.end(), policy) == kPolicies.end()) {
    std::string list;
    for (const std::string& p : kPolicies) list += (list.empty() ? "\"" : ", \"") + p + "\"";
    errors.push_back({"FieldValueNotSupported",
                      "Unsupported value: \"" + policy + "\": supported values: " + list,
                      policy_path});
  }
  const bj::value* config = spec ? member(spec, "dnsConfig") : nullptr;
  const std::string path = prefix + "spec.dnsConfig";
  if (policy == "None") {
    if (!config) {
      errors.push_back(required(path, "must provide `dnsConfig` when `dnsPolicy` is None"));
      return errors;
    }
    if (string_list(member(config, "nameservers")).empty()) {
      errors.push_back(
          required(path + ".nameservers",
                   "must provide at least one DNS nameserver when `dnsPolicy` is None"));
      return errors;
    }
  }
  if (!config) return errors;
  const std::vector<std::string> nameservers = string_list(member(config, "nameservers"));
  if (nameservers.size() > kMaxDnsNameservers) {
    errors.push_back(
        invalid_list(path + ".nameservers", nameservers, "must not have more than 3 nameservers"));
  }
  for (std::size_t i = 0; i < nameservers.size(); ++i) {
    if (!ip_address(nameservers[i])) {
      errors.push_back(
          invalid_value(path + ".nameservers[" + std::to_string(i) + "]", nameservers[i],
                        "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"));
    }
  }
  const std::vector<std::string> searches = string_list(member(config, "searches"));
  if (searches.size() > kMaxDnsSearchPaths) {
    errors.push_back(
        invalid_list(path + ".searches", searches, "must not have more than 32 search paths"));
  }
  std::size_t line = searches.empty() ? 0 : searches.size() - 1;
  for (const std::string& s : searches) line += s.size();
  if (line > kMaxDnsSearchListChars) {
    errors.push_back(invalid_list(
        path + ".searches", searches,
        "must not have more than 2048 characters (including spaces) in the search list"));
  }
  for (std::size_t i = 0; i < searches.size(); ++i) {
    if (searches[i] == ".") continue;
    std::string search = searches[i];
    if (!search.empty() && search.back() == '.') search.pop_back();
    // RelaxedDNSSearchValidation (on by default since 1.33): '_' allowed, "." as it is.
    if (std::string why = dns1123_subdomain_with_underscore_error(search); !why.empty()) {
      errors.push_back(invalid_value(path + ".searches[" + std::to_string(i) + "]", search, why));
    }
  }
  const bj::value* options = member(config, "options");
  if (options && options->is_array()) {
    for (std::size_t i = 0; i < options->as_array().size(); ++i) {
      if (string_member(options->as_array()[i], "name").empty()) {
        errors.push_back(required(path + ".options[" + std::to_string(i) + "]",
                                  "Option.Name must not be empty"));
      }
    }
  }
  return errors;
}

}  // namespace

// IsValidPortName (IANA service names).
std::vector<std::string> port_name_errors(std::string_view name) {
  std::vector<std::string> errors;
  if (name.size() > 15) errors.push_back("must be no more than 15 characters");
  bool letter = false, charset = true;
  for (char c : name) {
    bool lower = c >= 'a' && c <= 'z';
    letter = letter || lower;
    charset = charset && (lower || (c >= '0' && c <= '9') || c == '-');
  }
  if (!charset) {
    errors.push_back("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
  }
  if (name.find("--") != std::string_view::npos)
    errors.push_back("must not contain consecutive hyphens");
  if (!letter) errors.push_back("must contain at least one letter (a-z)");
  if (!name.empty() && (name.front() == '-' || name.back() == '-'))
    errors.push_back("must not begin or end with a hyphen");
  return errors;
}

void canonicalize_pod_quantities(bj::object& pod) {
  bj::value* spec = pod.if_contains("spec");
  if (!spec || !spec->is_object()) return;
  for (std::string_view list : {"initContainers", "containers"}) {
    bj::value* containers = spec->as_object().if_contains(list);
    if (!containers || !containers->is_array()) continue;
    for (bj::value& container : containers->as_array()) {
      if (container.is_object())
        canonicalize_requirements(container.as_object().if_contains("resources"));
    }
  }
  canonicalize_requirements(spec->as_object().if_contains("resources"));
  canonicalize_list(spec->as_object().if_contains("overhead"));
}

std::vector<FieldCause> validate_pod_spec(const bj::object& pod, const std::string& prefix) {
  Errors errors;
  const bj::value* containers = find_path(pod, "spec.containers");
  if (!containers || !containers->is_array() || containers->as_array().empty()) {
    errors.push_back(required(prefix + "spec.containers", ""));
  }
  std::set<std::string> names;
  append(errors, list_errors(pod, prefix, "containers", names));
  append(errors, list_errors(pod, prefix, "initContainers", names));
  append(errors, dns_errors(pod, prefix));
  return errors;
}

}  // namespace tailor::embedded
