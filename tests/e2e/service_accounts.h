// The e2e environment's tailor-controller and tailor-node-agents under the chart's
// ServiceAccounts instead of the administrator: `tailor cluster up` starts them with
// --kubeconfig=DIR/sa/<process>.kubeconfig, at first a link to the administrator's kubeconfig
// (no token exists before tailor-cluster does); once up, the chart's RBAC (rendered by Helm's
// engine, tests/tools/helm-render, for what the environment runs: watchVPA, agent actuation) is
// applied, tokens are requested (TokenRequest, `kubectl create token`), the links are replaced
// by kubeconfigs carrying them, and the processes are restarted onto them. tailor-cluster writes
// every authorization decision to DIR/audit.log (--audit-log-path), which
// least_privilege_test.cpp reads.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace tailor::e2e {

class E2eCluster;

inline constexpr const char* kControllerUser =
    "system:serviceaccount:kube-system:tailor-controller";
inline constexpr const char* kNodeAgentUser = "system:serviceaccount:kube-system:tailor-node-agent";
// The chart values matching what `tailor cluster up` runs.
inline constexpr const char* kEnvironmentValues =
    "controller: {watchVPA: true}\nnodeAgent: {actuation: agent}\n";

// The `tailor cluster up` arguments that point the processes at DIR/sa and turn the audit log
// on; creates DIR/sa with the links.
std::vector<std::string> service_account_up_args(const std::filesystem::path& dir);
// After `up`: RBAC, tokens, kubeconfigs, restarts; returns when every node is Ready again and
// the controller leads. Throws std::runtime_error saying what failed.
void run_under_chart_service_accounts(E2eCluster& cluster);

}  // namespace tailor::e2e
