#include "kube/client/exec_credential.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <cerrno>
#include <cstring>

#include "kube/http/base64.h"
#include "kube/model/time.h"

extern char** environ;

namespace tailor::kube {
namespace json = boost::json;

namespace {

std::string string_field(const json::object& object, std::string_view key,
                         const std::string& where) {
  const json::value* value = object.if_contains(key);
  if (value == nullptr || value->is_null()) return {};
  if (!value->is_string()) throw ConfigError(where + ": " + std::string(key) + " must be a string");
  return std::string(value->get_string());
}

}  // namespace

std::string exec_info_json(const ExecConfig& exec, const RestConfig& cluster) {
  json::object spec{{"interactive", false}};
  if (exec.provide_cluster_info) {
    json::object info{{"server", cluster.server}};
    if (!cluster.tls_server_name.empty()) info["tls-server-name"] = cluster.tls_server_name;
    if (cluster.insecure_skip_tls_verify) info["insecure-skip-tls-verify"] = true;
    if (!cluster.ca_pem.empty()) info["certificate-authority-data"] = base64_encode(cluster.ca_pem);
    spec["cluster"] = std::move(info);
  }
  json::object root{
      {"apiVersion", exec.api_version}, {"kind", "ExecCredential"}, {"spec", std::move(spec)}};
  return json::serialize(root);
}

ExecCredential parse_exec_credential(std::string_view text, const std::string& api_version) {
  const std::string where = "exec plugin output";
  json::value root;
  try {
    root = json::parse(text);
  } catch (const std::exception& e) {
    throw ConfigError(where + " is not valid JSON: " + e.what());
  }
  if (!root.is_object()) throw ConfigError(where + " is not a JSON object");
  const auto& object = root.get_object();
  std::string kind = string_field(object, "kind", where);
  if (kind != "ExecCredential")
    throw ConfigError(where + ": kind is '" + kind + "', not ExecCredential");
  std::string version = string_field(object, "apiVersion", where);
  if (version != api_version) {
    throw ConfigError(where + ": apiVersion '" + version + "' does not match the configured '" +
                      api_version + "'");
  }
  const json::value* status = object.if_contains("status");
  if (status == nullptr || !status->is_object()) throw ConfigError(where + ": missing status");
  const auto& fields = status->get_object();
  ExecCredential credential;
  credential.token = string_field(fields, "token", where);
  credential.client_cert_pem = string_field(fields, "clientCertificateData", where);
  credential.client_key_pem = string_field(fields, "clientKeyData", where);
  if (credential.client_cert_pem.empty() != credential.client_key_pem.empty()) {
    throw ConfigError(where + ": clientCertificateData and clientKeyData must come together");
  }
  if (credential.token.empty() && credential.client_cert_pem.empty()) {
    throw ConfigError(where + ": status has neither a token nor a client certificate");
  }
  std::string expiration = string_field(fields, "expirationTimestamp", where);
  if (!expiration.empty()) {
    auto parsed = try_parse_rfc3339(expiration);
    if (!parsed) {
      throw ConfigError(where + ": invalid RFC 3339 expirationTimestamp '" + expiration + "'");
    }
    credential.expiration =
        std::chrono::time_point_cast<std::chrono::system_clock::duration>(*parsed);
  }
  return credential;
}

namespace {

// Reads all of fd until EOF.
std::string read_all(int fd) {
  std::string out;
  char buffer[4096];
  for (;;) {
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n > 0) {
      out.append(buffer, static_cast<std::size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      return out;
    }
  }
}

std::vector<std::string> plugin_environment(const ExecConfig& exec, const std::string& exec_info) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) env.emplace_back(*e);
  auto set = [&](const std::string& name, const std::string& value) {
    std::erase_if(env, [&](const std::string& entry) { return entry.starts_with(name + "="); });
    env.push_back(name + "=" + value);
  };
  for (const auto& [name, value] : exec.env) set(name, value);
  set("KUBERNETES_EXEC_INFO", exec_info);
  return env;
}

std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

}  // namespace

std::string run_exec_plugin(const ExecConfig& exec, const std::string& exec_info) {
  if (exec.command.empty()) throw ConfigError("exec plugin: no command");
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0)
    throw ConfigError("exec plugin: pipe: " + std::string(std::strerror(errno)));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 1);
  std::vector<std::string> argv_strings{exec.command};
  argv_strings.insert(argv_strings.end(), exec.args.begin(), exec.args.end());
  std::vector<std::string> env_strings = plugin_environment(exec, exec_info);
  auto argv = c_strings(argv_strings);
  auto envp = c_strings(env_strings);
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, exec.command.c_str(), &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  ::close(pipe_fds[1]);
  if (rc != 0) {
    ::close(pipe_fds[0]);
    throw ConfigError("exec plugin '" + exec.command + "' cannot be started: " + std::strerror(rc));
  }
  std::string output = read_all(pipe_fds[0]);
  ::close(pipe_fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::string how = WIFEXITED(status)
                          ? "exited with status " + std::to_string(WEXITSTATUS(status))
                          : "was killed by a signal";
    throw ConfigError("exec plugin '" + exec.command + "' " + how);
  }
  return output;
}

}  // namespace tailor::kube
