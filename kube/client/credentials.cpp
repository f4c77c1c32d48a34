#include "kube/client/credentials.h"

#include <fstream>
#include <sstream>

#include "kube/http/base64.h"

namespace tailor::kube {
namespace fs = std::filesystem;

namespace {

std::string trim(std::string text) {
  auto is_space = [](char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; };
  while (!text.empty() && is_space(text.back())) text.pop_back();
  std::size_t start = 0;
  while (start < text.size() && is_space(text[start])) ++start;
  return text.substr(start);
}

std::string bearer(const std::string& token) { return token.empty() ? "" : "Bearer " + token; }

}  // namespace

CredentialSource::CredentialSource(const RestConfig& config, ExecRunner runner, Now now)
    : config_(config), runner_(std::move(runner)), now_(std::move(now)) {
  std::string authorization = bearer(trim(config_.bearer_token));
  if (authorization.empty() && !config_.username.empty()) {
    authorization = "Basic " + base64_encode(config_.username + ":" + config_.password);
  }
  current_.authorization = std::move(authorization);
  current_.client_cert_pem = config_.client_cert_pem;
  current_.client_key_pem = config_.client_key_pem;
}

void CredentialSource::publish(std::string authorization, std::string cert, std::string key) {
  if (authorization == current_.authorization && cert == current_.client_cert_pem &&
      key == current_.client_key_pem) {
    return;
  }
  current_.authorization = std::move(authorization);
  current_.client_cert_pem = std::move(cert);
  current_.client_key_pem = std::move(key);
  ++current_.generation;
}

void CredentialSource::load_token_file(bool force) {
  std::error_code ec;
  auto mtime = fs::last_write_time(config_.bearer_token_file, ec);
  if (ec)
    throw ConfigError("cannot read token file '" + config_.bearer_token_file +
                      "': " + ec.message());
  if (!force && token_file_mtime_ == mtime) return;
  std::ifstream in(config_.bearer_token_file);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in) throw ConfigError("cannot read token file '" + config_.bearer_token_file + "'");
  token_file_mtime_ = mtime;
  std::string token = trim(text.str());
  if (token.empty()) throw ConfigError("token file '" + config_.bearer_token_file + "' is empty");
  publish(bearer(token), current_.client_cert_pem, current_.client_key_pem);
}

void CredentialSource::load_exec(bool force) {
  bool expired = exec_expiry_ && now_() >= *exec_expiry_;
  if (exec_loaded_ && !force && !expired) return;
  const ExecConfig& exec = *config_.exec;
  ExecCredential credential =
      parse_exec_credential(runner_(exec, exec_info_json(exec, config_)), exec.api_version);
  exec_loaded_ = true;
  exec_expiry_ = credential.expiration;
  std::string cert =
      credential.client_cert_pem.empty() ? config_.client_cert_pem : credential.client_cert_pem;
  std::string key =
      credential.client_key_pem.empty() ? config_.client_key_pem : credential.client_key_pem;
  publish(bearer(credential.token), std::move(cert), std::move(key));
}

Credentials CredentialSource::current() {
  std::lock_guard lock(mutex_);
  if (config_.exec) {
    load_exec(false);
  } else if (!config_.bearer_token_file.empty()) {
    load_token_file(false);
  }
  return current_;
}

bool CredentialSource::refresh(std::uint64_t failed) {
  std::lock_guard lock(mutex_);
  if (current_.generation != failed) return true;  // someone else refreshed meanwhile
  if (config_.exec) {
    load_exec(true);
  } else if (!config_.bearer_token_file.empty()) {
    load_token_file(true);
  }
  return current_.generation != failed;
}

}  // namespace tailor::kube
