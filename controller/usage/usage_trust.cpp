#include "controller/usage/usage_trust.h"

namespace tailor::controller::usage {
namespace {

constexpr std::string_view kNodeUserPrefix = "system:node:";
constexpr std::string_view kNodesGroup = "system:nodes";

// One "type=value" part, the value's escapes ("\,", "\+", "\\", ...) undone. false when the
// part has no '=' or an empty type.
bool parse_attribute(std::string_view part, std::pair<std::string, std::string>& out) {
  const auto equals = part.find('=');
  if (equals == std::string_view::npos || equals == 0) return false;
  out.first = std::string(part.substr(0, equals));
  out.second.clear();
  for (std::size_t i = equals + 1; i < part.size(); ++i) {
    if (part[i] == '\\' && i + 1 < part.size()) ++i;
    out.second.push_back(part[i]);
  }
  return true;
}

}  // namespace

std::string_view rejection_reason(Rejection r) {
  switch (r) {
    case Rejection::kUnauthenticated:
      return "unauthenticated";
    case Rejection::kWrongNode:
      return "wrong_node";
    case Rejection::kUnknownPod:
      return "unknown_pod";
    case Rejection::kRateLimited:
      return "rate_limited";
    case Rejection::kInvalid:
      return "invalid";
  }
  return "invalid";
}

// Parts end at a ',' or '+' (a multi-valued RDN) that no backslash escapes.
std::vector<std::pair<std::string, std::string>> parse_distinguished_name(std::string_view dn) {
  std::vector<std::pair<std::string, std::string>> attributes;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= dn.size(); ++i) {
    if (i < dn.size() && dn[i] == '\\') {
      ++i;
      continue;
    }
    if (i < dn.size() && dn[i] != ',' && dn[i] != '+') continue;
    std::pair<std::string, std::string> attribute;
    if (!parse_attribute(dn.substr(start, i - start), attribute)) return {};
    attributes.push_back(std::move(attribute));
    start = i + 1;
  }
  return attributes;
}

std::optional<std::string> node_of_subject(std::string_view subject_dn) {
  std::optional<std::string> node;
  bool in_nodes_group = false;
  int common_names = 0;
  for (const auto& [type, value] : parse_distinguished_name(subject_dn)) {
    if (type == "O" && value == kNodesGroup) in_nodes_group = true;
    if (type != "CN") continue;
    ++common_names;
    if (value.size() > kNodeUserPrefix.size() && value.starts_with(kNodeUserPrefix)) {
      node = value.substr(kNodeUserPrefix.size());
    }
  }
  // Two common names would leave it open which one names the user.
  if (!in_nodes_group || common_names != 1) return std::nullopt;
  return node;
}

std::optional<Rejection> binding_problem(const std::string& reporting_node,
                                         const std::optional<std::string>& pod_node) {
  if (!pod_node) return Rejection::kUnknownPod;
  if (reporting_node.empty() || *pod_node != reporting_node) return Rejection::kWrongNode;
  return std::nullopt;
}

}  // namespace tailor::controller::usage
