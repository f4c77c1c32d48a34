// networking.k8s.io/v1 NetworkPolicies as kube-apiserver stores them (pure):
// SetDefaults_NetworkPolicy and ValidateNetworkPolicySpec with its field paths and messages.
// tailor-cluster stores and serves them; nothing enforces them (as on a cluster whose network
// plugin has no NetworkPolicy support).
#pragma once

#include <boost/json/fwd.hpp>
#include <vector>

#include "embedded/storage/status_error.h"

namespace tailor::embedded {

// A port's protocol TCP when unset; policyTypes, when empty, [Ingress] plus Egress when the
// policy has egress rules.
void default_network_policy(boost::json::object& policy);

// The spec's field errors in kube-apiserver's order (podSelector, ingress rules' ports then
// peers, egress rules', policyTypes); empty when valid.
std::vector<FieldCause> network_policy_errors(const boost::json::object& policy);

}  // namespace tailor::embedded
