// Who may report usage, and for which pods. The usage stream moves pods (its windows become
// recommendations, recommendations become resizes and evictions), so the controller takes a
// window only from an authenticated node agent and only for a pod bound to that agent's node,
// as the API server's NodeRestriction admission lets a kubelet write only its own node's pods.
// An agent proves its node with a client certificate like a kubelet's: subject
// CN=system:node:<nodeName>, O=system:nodes, signed by the usage CA. These are the pure
// decisions; usage_server.cpp applies them and counts what it drops.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tailor::controller::usage {

// Why a window was dropped: the label of tailor_controller_usage_windows_rejected_total.
enum class Rejection : std::uint8_t {
  kUnauthenticated,  // the peer's certificate names no node (or the stream has no identity)
  kWrongNode,        // the pod is bound to another node, or the report claims another node
  kUnknownPod,       // the controller's informer has no such pod (yet, or any more)
  kRateLimited,      // beyond the stream's windows-per-second budget
  kInvalid,          // NaN, negative or absurd values, times out of order (window_problem)
};
inline constexpr std::size_t kRejectionCount = 5;
inline constexpr std::array<Rejection, kRejectionCount> kRejections = {
    Rejection::kUnauthenticated, Rejection::kWrongNode, Rejection::kUnknownPod,
    Rejection::kRateLimited, Rejection::kInvalid};

// "unauthenticated", "wrong_node", "unknown_pod", "rate_limited", "invalid".
std::string_view rejection_reason(Rejection r);

// The attribute type/value pairs of an RFC 2253 distinguished name as gRPC reports a peer's
// subject ("CN=system:node:n1,O=system:nodes"), with backslash escapes undone. Empty when the
// text is not a distinguished name.
std::vector<std::pair<std::string, std::string>> parse_distinguished_name(std::string_view dn);

// The node a certificate subject names, as Kubernetes' node identifier reads a user: common
// name "system:node:<name>" with a non-empty name, and organization "system:nodes". nullopt for
// any other subject.
std::optional<std::string> node_of_subject(std::string_view subject_dn);

// Whether a window from the agent of `reporting_node` about a pod may be used: nullopt when the
// pod is bound to that node. `pod_node` is the pod's spec.nodeName as the informer has it
// (nullopt: the informer has no such pod).
std::optional<Rejection> binding_problem(const std::string& reporting_node,
                                         const std::optional<std::string>& pod_node);

}  // namespace tailor::controller::usage
