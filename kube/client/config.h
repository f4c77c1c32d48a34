// RestConfig: how to reach and authenticate to an API server, loaded from a kubeconfig
// (current context or a named one) or from the in-cluster service account.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace tailor::kube {

class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// users[].user.exec of a kubeconfig (client.authentication.k8s.io/v1 and v1beta1).
struct ExecConfig {
  std::string api_version;
  std::string command;
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> env;
  std::string interactive_mode;  // Never | IfAvailable | Always
  bool provide_cluster_info = false;
};

struct RestConfig {
  std::string server;  // e.g. "https://127.0.0.1:6443"
  std::string tls_server_name;
  std::string ca_pem;  // from certificate-authority-data or the certificate-authority file
  bool insecure_skip_tls_verify = false;
  std::string client_cert_pem;
  std::string client_key_pem;
  std::string bearer_token;
  std::string bearer_token_file;  // re-read when it changes (rotated service-account tokens)
  std::optional<ExecConfig> exec;
  std::string username, password;  // basic auth, for completeness
  std::string namespace_;          // the context's namespace ("" : default)

  double qps = 50;  // client-side rate limit; <= 0 disables it
  int burst = 100;
  std::chrono::milliseconds timeout{30000};  // per request (not watches)
  int max_retries = 5;                       // retries after the first attempt
  // Exponential backoff between retries: base * 2^attempt, capped, with jitter.
  std::chrono::milliseconds retry_base_delay{200};
  std::chrono::milliseconds retry_max_delay{10000};
  std::string user_agent = "tailor";
};

// Loads a kubeconfig file; context "" means current-context. Relative file paths in it are
// resolved against the file's folder, as kubectl does.
RestConfig load_kubeconfig(const std::string& path, const std::string& context = "");
// The in-cluster config: KUBERNETES_SERVICE_HOST/PORT and the service-account files under
// root (default /var/run/secrets/kubernetes.io/serviceaccount).
RestConfig in_cluster_config(
    const std::string& root = "/var/run/secrets/kubernetes.io/serviceaccount");
// What every process does with --kubeconfig: the flag, else $KUBECONFIG (first file), else
// in-cluster, else ~/.kube/config.
RestConfig load_config(const std::string& kubeconfig_flag, const std::string& context = "");

}  // namespace tailor::kube
