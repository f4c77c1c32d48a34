// The credentials a request carries, kept fresh: a static bearer token, a token file re-read
// when it changes (rotated service-account tokens) or after a 401, an exec plugin's token or
// client certificate cached until it expires and re-run after a 401, basic auth, or the
// kubeconfig's client certificate.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <mutex>
#include <optional>
#include <string>

#include "kube/client/config.h"
#include "kube/client/exec_credential.h"

namespace tailor::kube {

struct Credentials {
  std::string authorization;  // the Authorization header value, "" for none
  std::string client_cert_pem;
  std::string client_key_pem;
  std::uint64_t generation = 0;  // changes whenever the credentials change
};

class CredentialSource {
 public:
  // Runs an exec plugin: (exec config, KUBERNETES_EXEC_INFO) -> its stdout. Injectable for tests.
  using ExecRunner = std::function<std::string(const ExecConfig&, const std::string&)>;
  using Now = std::function<std::chrono::system_clock::time_point()>;

  explicit CredentialSource(const RestConfig& config, ExecRunner runner = run_exec_plugin,
                            Now now = std::chrono::system_clock::now);

  // The credentials to use now. Throws ConfigError when a token file or exec plugin fails.
  // Thread-safe.
  Credentials current();

  // Called after a 401 for a request made with generation `failed`: re-reads the token file /
  // re-runs the exec plugin unless another caller already did. True when the credentials
  // changed, i.e. the request is worth repeating.
  bool refresh(std::uint64_t failed);

 private:
  void load_token_file(bool force);
  void load_exec(bool force);
  void publish(std::string authorization, std::string cert, std::string key);

  RestConfig config_;
  ExecRunner runner_;
  Now now_;
  std::mutex mutex_;
  Credentials current_;
  std::optional<std::filesystem::file_time_type> token_file_mtime_;
  std::optional<std::chrono::system_clock::time_point> exec_expiry_;
  bool exec_loaded_ = false;
};

}  // namespace tailor::kube
