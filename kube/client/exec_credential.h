// Exec credential plugins (users[].user.exec in a kubeconfig; client.authentication.k8s.io v1
// and v1beta1): run the command with KUBERNETES_EXEC_INFO in its environment and read an
// ExecCredential from its standard output.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "kube/client/config.h"

namespace tailor::kube {

struct ExecCredential {
  std::string token;
  std::string client_cert_pem;
  std::string client_key_pem;
  std::optional<std::chrono::system_clock::time_point> expiration;
};

// The KUBERNETES_EXEC_INFO document for config (with the cluster when provideClusterInfo).
std::string exec_info_json(const ExecConfig& exec, const RestConfig& cluster);

// Parses the plugin's output. Throws ConfigError saying what is wrong: not JSON, wrong kind or
// apiVersion, no status, neither token nor certificate, a certificate without its key, a bad
// expirationTimestamp.
ExecCredential parse_exec_credential(std::string_view json, const std::string& api_version);

// Runs the plugin and returns its stdout. Throws ConfigError when it cannot be started or exits
// non-zero (its stderr passes through to ours, as kubectl does).
std::string run_exec_plugin(const ExecConfig& exec, const std::string& exec_info);

}  // namespace tailor::kube
