#include "embedded/controllers/network_policies.h"

#include <arpa/inet.h>

#include <array>
#include <boost/json.hpp>
#include <optional>
#include <string>

#include "embedded/api/pod_validation.h"
#include "embedded/api/tables.h"
#include "embedded/api/validation.h"
#include "embedded/controllers/handlers.h"
#include "embedded/controllers/objects.h"
#include "embedded/storage/field_errors.h"

namespace tailor::embedded {
namespace {

bool is_network_policy(const ResourceInfo& r) {
  return r.group == "networking.k8s.io" && r.resource == "networkpolicies";
}

std::string index(const std::string& path, std::size_t i) {
  return path + "[" + std::to_string(i) + "]";
}

// ValidateLabelName: a qualified name, each message an Invalid value of the field.
void label_name_errors(const std::string& key, const std::string& path,
                       std::vector<FieldCause>& out) {
  for (const std::string& why : qualified_name_errors(key)) {
    out.push_back(invalid_value(path, key, why));
  }
}

// ValidateLabelSelector: matchLabels' keys, then each requirement's operator, values and key.
void selector_errors(const bj::value* selector, const std::string& path,
                     std::vector<FieldCause>& out) {
  if (!selector || !selector->is_object()) return;
  const bj::object& s = selector->as_object();
  if (const bj::value* labels = s.if_contains("matchLabels"); labels && labels->is_object()) {
    for (const auto& [key, value] : labels->as_object()) {
      label_name_errors(std::string(key), path + ".matchLabels", out);
    }
  }
  const bj::array& requirements = array_at(s, "matchExpressions");
  for (std::size_t i = 0; i < requirements.size(); ++i) {
    if (!requirements[i].is_object()) continue;
    const bj::object& r = requirements[i].as_object();
    const std::string at = index(path + ".matchExpressions", i);
    const std::string op = string_at(r, "operator");
    const std::size_t values = array_at(r, "values").size();
    if (op == "In" || op == "NotIn") {
      if (values == 0) {
        out.push_back(
            required(at + ".values", "must be specified when `operator` is 'In' or 'NotIn'"));
      }
    } else if (op == "Exists" || op == "DoesNotExist") {
      if (values > 0) {
        out.push_back(forbidden(at + ".values",
                                "may not be specified when `operator` is 'Exists' or "
                                "'DoesNotExist'"));
      }
    } else {
      out.push_back(invalid_value(at + ".operator", op, "not a valid selector operator"));
    }
    label_name_errors(string_at(r, "key"), at + ".key", out);
  }
}

// ValidateNetworkPolicyPort.
void port_errors(const bj::object& port, const std::string& path, std::vector<FieldCause>& out) {
  const bj::value* protocol = port.if_contains("protocol");
  if (protocol && protocol->is_string() && protocol->as_string() != "TCP" &&
      protocol->as_string() != "UDP" && protocol->as_string() != "SCTP") {
    out.push_back(not_supported(path + ".protocol", std::string(protocol->as_string()),
                                {"TCP", "UDP", "SCTP"}));
  }
  const bj::value* number = port.if_contains("port");
  const bj::value* end = port.if_contains("endPort");
  if (end && end->is_null()) end = nullptr;
  const std::int64_t end_port = end && end->is_int64() ? end->as_int64() : 0;
  if (number && number->is_int64()) {
    const std::int64_t p = number->as_int64();
    if (p < 1 || p > 65535) out.push_back(invalid_number(path + ".port", p, kPortRange));
    if (end) {
      if (end_port < p) {
        out.push_back(
            invalid_number(path + ".endPort", end_port, "must be greater than or equal to `port`"));
      }
      if (end_port < 1 || end_port > 65535) {
        out.push_back(invalid_number(path + ".endPort", end_port, kPortRange));
      }
    }
  } else if (number && number->is_string()) {
    if (end) {
      out.push_back(invalid_number(path + ".endPort", end_port,
                                   "may not be specified when `port` is non-numeric"));
    }
    const std::string name(number->as_string());
    for (const std::string& why : port_name_errors(name)) {
      out.push_back(invalid_value(path + ".port", name, why));
    }
  } else if (end) {
    out.push_back(invalid_number(path + ".endPort", end_port,
                                 "may not be specified when `port` is not specified"));
  }
}

// An address of a CIDR as 16 bytes (IPv4 in the last 4) and its prefix length over them;
// nullopt unless "address/prefix" (netutils.ParseCIDRSloppy).
struct Cidr {
  std::array<unsigned char, 16> bytes{};
  int prefix = 0;  // over the 128 bits
};

std::optional<Cidr> parse_cidr(const std::string& text) {
  const std::size_t slash = text.find('/');
  if (slash == std::string::npos || slash + 1 == text.size() || slash + 4 < text.size()) {
    return std::nullopt;
  }
  const std::string address = text.substr(0, slash);
  const std::string bits = text.substr(slash + 1);
  if (bits.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  const int n = std::stoi(bits);
  Cidr c;
  if (address.find(':') == std::string::npos) {
    if (n > 32 || inet_pton(AF_INET, address.c_str(), c.bytes.data() + 12) != 1) {
      return std::nullopt;
    }
    c.prefix = 96 + n;
  } else {
    if (n > 128 || inet_pton(AF_INET6, address.c_str(), c.bytes.data()) != 1) return std::nullopt;
    c.prefix = n;
  }
  return c;
}

// `inner`'s address lies in `outer`'s network.
bool contains(const Cidr& outer, const Cidr& inner) {
  for (int bit = 0; bit < outer.prefix; ++bit) {
    const int mask = 0x80 >> (bit % 8);
    if ((outer.bytes[bit / 8] & mask) != (inner.bytes[bit / 8] & mask)) return false;
  }
  return true;
}

constexpr const char* kCidrExample =
    "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)";

// ValidateIPBlock.
void ip_block_errors(const bj::object& block, const std::string& path,
                     std::vector<FieldCause>& out) {
  const std::string cidr = string_at(block, "cidr");
  if (cidr.empty()) {
    out.push_back(required(path + ".cidr"));
    return;
  }
  const std::optional<Cidr> outer = parse_cidr(cidr);
  if (!outer) {
    out.push_back(invalid_value(path + ".cidr", cidr, kCidrExample));
    return;
  }
  const bj::array& except = array_at(block, "except");
  for (std::size_t i = 0; i < except.size(); ++i) {
    const std::string at = index(path + ".except", i);
    const std::string text = except[i].is_string() ? std::string(except[i].as_string()) : "";
    const std::optional<Cidr> inner = parse_cidr(text);
    if (!inner) {
      out.push_back(invalid_value(at, text, kCidrExample));
    } else if (!contains(*outer, *inner) || outer->prefix >= inner->prefix) {
      out.push_back(invalid_value(at, text, "must be a strict subset of `cidr`"));
    }
  }
}

bool present(const bj::object& o, std::string_view key) {
  const bj::value* v = o.if_contains(key);
  return v && !v->is_null();
}

// ValidateNetworkPolicyPeer.
void peer_errors(const bj::object& peer, const std::string& path, std::vector<FieldCause>& out) {
  int peers = 0;
  for (const char* selector : {"podSelector", "namespaceSelector"}) {
    if (!present(peer, selector)) continue;
    ++peers;
    selector_errors(peer.if_contains(selector), path + "." + selector, out);
  }
  const bool ip_block = present(peer, "ipBlock");
  if (ip_block) {
    ++peers;
    ip_block_errors(object_at(peer, "ipBlock"), path + ".ipBlock", out);
  }
  if (peers == 0) {
    out.push_back(required(path, "must specify a peer"));
  } else if (peers > 1 && ip_block) {
    out.push_back(forbidden(path, "may not specify both ipBlock and another peer"));
  }
}

void rule_errors(const bj::object& spec, const char* direction, const char* peers,
                 std::vector<FieldCause>& out) {
  const bj::array& rules = array_at(spec, direction);
  for (std::size_t i = 0; i < rules.size(); ++i) {
    if (!rules[i].is_object()) continue;
    const std::string at = index(std::string("spec.") + direction, i);
    const bj::array& ports = array_at(rules[i].as_object(), "ports");
    for (std::size_t p = 0; p < ports.size(); ++p) {
      if (ports[p].is_object()) port_errors(ports[p].as_object(), index(at + ".ports", p), out);
    }
    const bj::array& list = array_at(rules[i].as_object(), peers);
    for (std::size_t p = 0; p < list.size(); ++p) {
      if (list[p].is_object()) {
        peer_errors(list[p].as_object(), index(at + "." + peers, p), out);
      }
    }
  }
}

// `[]networking.PolicyType{"Ingress", "Egress", "Ingress"}`, as field.Invalid prints the slice.
std::string policy_types_text(const bj::array& types) {
  std::string text = "[]networking.PolicyType{";
  for (std::size_t i = 0; i < types.size(); ++i) {
    if (i > 0) text += ", ";
    text += bj::serialize(types[i]);
  }
  return text + "}";
}

std::string pod_selector_text(const bj::object& policy) {
  try {
    std::string text = label_selector_string(object_at(policy, "spec.podSelector"));
    return text.empty() ? "<none>" : text;
  } catch (const std::invalid_argument&) {
    return "<error>";
  }
}

bj::array network_policy_row(const bj::object& policy, kube::TimePoint now) {
  return {meta_string(policy, "name"), pod_selector_text(policy), age_cell(policy, now)};
}

}  // namespace

void default_network_policy(bj::object& policy) {
  bj::object& spec = object_field(policy, "spec");
  fill(spec, "podSelector", bj::object{});
  for (const char* direction : {"ingress", "egress"}) {
    bj::value* rules = spec.if_contains(direction);
    if (!rules || !rules->is_array()) continue;
    for (bj::value& rule : rules->as_array()) {
      if (!rule.is_object()) continue;
      bj::value* ports = rule.as_object().if_contains("ports");
      if (!ports || !ports->is_array()) continue;
      for (bj::value& port : ports->as_array()) {
        if (port.is_object()) fill(port.as_object(), "protocol", "TCP");
      }
    }
  }
  if (array_at(spec, "policyTypes").empty()) {
    bj::array types{"Ingress"};
    if (!array_at(spec, "egress").empty()) types.push_back("Egress");
    spec["policyTypes"] = std::move(types);
  }
}

std::vector<FieldCause> network_policy_errors(const bj::object& policy) {
  std::vector<FieldCause> out;
  const bj::object& spec = object_at(policy, "spec");
  selector_errors(spec.if_contains("podSelector"), "spec.podSelector", out);
  rule_errors(spec, "ingress", "from", out);
  rule_errors(spec, "egress", "to", out);
  const bj::array& types = array_at(spec, "policyTypes");
  if (types.size() > 2) {
    out.push_back({"FieldValueInvalid",
                   "Invalid value: " + policy_types_text(types) +
                       ": may not specify more than two policyTypes",
                   "spec.policyTypes"});
    return out;
  }
  for (std::size_t i = 0; i < types.size(); ++i) {
    const std::string type = types[i].is_string() ? std::string(types[i].as_string()) : "";
    if (type != "Ingress" && type != "Egress") {
      out.push_back(not_supported(index("spec.policyTypes", i), type, {"Ingress", "Egress"}));
    }
  }
  return out;
}

void default_network_policy(AdmissionRequest& request) {
  if (!request.subresource.empty() || !is_network_policy(request.resource)) return;
  default_network_policy(request.object);
}

void validate_network_policy(AdmissionRequest& request) {
  const ResourceInfo& r = request.resource;
  if (!request.subresource.empty() || !is_network_policy(r)) return;
  std::vector<FieldCause> causes = network_policy_errors(request.object);
  if (!causes.empty()) throw invalid(r.group, r.kind, meta_string(request.object, "name"), causes);
}

const Printer* network_policy_printer(const ResourceInfo& resource) {
  static const Printer kPrinter{
      {name_column(),
       {"Pod-Selector", "string", "",
        "Selects the pods to which this NetworkPolicy object applies. The array of ingress rules "
        "is applied to any pods selected by this field. Multiple network policies can select the "
        "same set of pods. In this case, the ingress rules for each are combined additively. "
        "This field is NOT optional and follows standard label selector semantics. An empty "
        "podSelector matches all pods in this namespace.",
        0},
       age_column()},
      network_policy_row};
  return is_network_policy(resource) ? &kPrinter : nullptr;
}

}  // namespace tailor::embedded
