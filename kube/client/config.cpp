#include "kube/client/config.h"

#include <yaml-cpp/yaml.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "kube/http/base64.h"

namespace tailor::kube {
namespace fs = std::filesystem;

namespace {

std::string read_file(const fs::path& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError("cannot read " + what + " '" + path.string() + "'");
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// A kubeconfig section being read, with the place it comes from for error messages.
struct Section {
  YAML::Node node;
  std::string where;

  std::string text(const char* key) const {
    YAML::Node value = node[key];
    if (!value || value.IsNull()) return {};
    if (!value.IsScalar()) throw ConfigError(where + ": " + key + " must be a string");
    return value.as<std::string>();
  }
  bool flag(const char* key) const {
    YAML::Node value = node[key];
    if (!value || value.IsNull()) return false;
    try {
      return value.as<bool>();
    } catch (const YAML::Exception&) {
      throw ConfigError(where + ": " + key + " must be true or false");
    }
  }
  std::string data(const char* key) const {
    std::string encoded = text(key);
    try {
      return base64_decode(encoded);
    } catch (const std::invalid_argument&) {
      throw ConfigError(where + ": " + key + " is not valid base64");
    }
  }
};

// The entry named `name` of a kubeconfig list (clusters, users, contexts), e.g. its "cluster".
Section find_named(const YAML::Node& root, const char* list, const char* field,
                   const std::string& name, const std::string& file) {
  YAML::Node entries = root[list];
  if (entries && !entries.IsSequence()) throw ConfigError(file + ": " + list + " must be a list");
  if (entries) {
    for (const auto& entry : entries) {
      if (entry["name"] && entry["name"].as<std::string>() == name) {
        return {entry[field], file + ": " + list + "[" + name + "]." + field};
      }
    }
  }
  throw ConfigError(file + ": no entry named '" + name + "' in " + list);
}

class KubeconfigReader {
 public:
  KubeconfigReader(std::string path) : file_(std::move(path)) {
    folder_ = fs::absolute(fs::path(file_)).parent_path();
  }

  RestConfig read(const std::string& context_name);

 private:
  // Relative paths in a kubeconfig are relative to the folder of the file.
  std::string resolve(const std::string& path) const {
    if (path.empty() || fs::path(path).is_absolute()) return path;
    return (folder_ / path).lexically_normal().string();
  }
  // "x-data" (base64) wins over "x" (a file), as in client-go.
  std::string file_or_data(const Section& section, const char* file_key, const char* data_key,
                           const char* what) const {
    if (std::string data = section.data(data_key); !data.empty()) return data;
    std::string path = section.text(file_key);
    return path.empty() ? std::string() : read_file(resolve(path), what);
  }
  void read_cluster(const Section& cluster, RestConfig& config) const;
  void read_user(const Section& user, RestConfig& config) const;
  ExecConfig read_exec(const Section& exec) const;

  std::string file_;
  fs::path folder_;
};

RestConfig KubeconfigReader::read(const std::string& context_name) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(file_);
  } catch (const YAML::BadFile&) {
    throw ConfigError("cannot read kubeconfig '" + file_ + "'");
  } catch (const YAML::Exception& e) {
    throw ConfigError("kubeconfig '" + file_ + "' is not valid YAML: " + e.what());
  }
  if (!root.IsMap()) throw ConfigError("kubeconfig '" + file_ + "' is not a YAML mapping");
  std::string name = context_name;
  if (name.empty() && root["current-context"]) name = root["current-context"].as<std::string>();
  if (name.empty()) throw ConfigError(file_ + ": no context given and no current-context set");
  Section context = find_named(root, "contexts", "context", name, file_);
  RestConfig config;
  std::string cluster_name = context.text("cluster");
  if (cluster_name.empty()) throw ConfigError(context.where + ": no cluster");
  read_cluster(find_named(root, "clusters", "cluster", cluster_name, file_), config);
  if (std::string user_name = context.text("user"); !user_name.empty()) {
    read_user(find_named(root, "users", "user", user_name, file_), config);
  }
  config.namespace_ = context.text("namespace");
  return config;
}

void KubeconfigReader::read_cluster(const Section& cluster, RestConfig& config) const {
  config.server = cluster.text("server");
  if (config.server.empty()) throw ConfigError(cluster.where + ": no server");
  if (!cluster.text("proxy-url").empty()) {
    throw ConfigError(cluster.where + ": proxy-url is not supported; reach the server directly");
  }
  config.tls_server_name = cluster.text("tls-server-name");
  config.insecure_skip_tls_verify = cluster.flag("insecure-skip-tls-verify");
  config.ca_pem = file_or_data(cluster, "certificate-authority", "certificate-authority-data",
                               "certificate authority");
}

void KubeconfigReader::read_user(const Section& user, RestConfig& config) const {
  if (user.node["auth-provider"]) {
    throw ConfigError(user.where + ": auth-provider plugins are not supported; use exec");
  }
  config.client_cert_pem =
      file_or_data(user, "client-certificate", "client-certificate-data", "client certificate");
  config.client_key_pem = file_or_data(user, "client-key", "client-key-data", "client key");
  if (config.client_cert_pem.empty() != config.client_key_pem.empty()) {
    throw ConfigError(user.where + ": a client certificate needs its key and vice versa");
  }
  config.bearer_token = user.text("token");
  config.bearer_token_file = resolve(user.text("tokenFile"));
  config.username = user.text("username");
  config.password = user.text("password");
  if (user.node["exec"]) config.exec = read_exec({user.node["exec"], user.where + ".exec"});
}

ExecConfig KubeconfigReader::read_exec(const Section& exec) const {
  ExecConfig out;
  out.api_version = exec.text("apiVersion");
  if (out.api_version != "client.authentication.k8s.io/v1" &&
      out.api_version != "client.authentication.k8s.io/v1beta1") {
    throw ConfigError(exec.where + ": unsupported apiVersion '" + out.api_version + "'");
  }
  out.command = exec.text("command");
  if (out.command.empty()) throw ConfigError(exec.where + ": no command");
  // A command with a slash but not absolute is relative to the kubeconfig's folder.
  if (out.command.find('/') != std::string::npos) out.command = resolve(out.command);
  if (YAML::Node args = exec.node["args"]) {
    for (const auto& arg : args) out.args.push_back(arg.as<std::string>());
  }
  if (YAML::Node env = exec.node["env"]) {
    for (const auto& entry : env) {
      Section item{entry, exec.where + ".env"};
      out.env.emplace_back(item.text("name"), item.text("value"));
    }
  }
  out.interactive_mode = exec.text("interactiveMode");
  if (out.interactive_mode.empty()) out.interactive_mode = "IfAvailable";
  if (out.interactive_mode == "Always") {
    throw ConfigError(exec.where + ": interactiveMode Always needs a terminal, which Tailor lacks");
  }
  out.provide_cluster_info = exec.flag("provideClusterInfo");
  return out;
}

std::string env_or_empty(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? std::string() : std::string(value);
}

}  // namespace

RestConfig load_kubeconfig(const std::string& path, const std::string& context) {
  return KubeconfigReader(path).read(context);
}

RestConfig in_cluster_config(const std::string& root) {
  std::string host = env_or_empty("KUBERNETES_SERVICE_HOST");
  std::string port = env_or_empty("KUBERNETES_SERVICE_PORT");
  if (host.empty() || port.empty()) {
    throw ConfigError(
        "not running in a cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be "
        "set");
  }
  if (host.find(':') != std::string::npos) host = "[" + host + "]";
  RestConfig config;
  config.server = "https://" + host + ":" + port;
  fs::path folder(root);
  config.bearer_token_file = (folder / "token").string();
  config.bearer_token = read_file(config.bearer_token_file, "service account token");
  config.ca_pem = read_file(folder / "ca.crt", "service account CA");
  if (fs::exists(folder / "namespace")) {
    config.namespace_ = read_file(folder / "namespace", "service account namespace");
    while (!config.namespace_.empty() &&
           std::isspace(static_cast<unsigned char>(config.namespace_.back()))) {
      config.namespace_.pop_back();
    }
  }
  return config;
}

RestConfig load_config(const std::string& kubeconfig_flag, const std::string& context) {
  if (!kubeconfig_flag.empty()) return load_kubeconfig(kubeconfig_flag, context);
  std::string from_env = env_or_empty("KUBECONFIG");
  if (!from_env.empty()) return load_kubeconfig(from_env.substr(0, from_env.find(':')), context);
  if (!env_or_empty("KUBERNETES_SERVICE_HOST").empty()) return in_cluster_config();
  std::string home = env_or_empty("HOME");
  fs::path default_file = fs::path(home) / ".kube" / "config";
  if (!home.empty() && fs::exists(default_file))
    return load_kubeconfig(default_file.string(), context);
  throw ConfigError(
      "no Kubernetes configuration: pass --kubeconfig, set KUBECONFIG, run in a cluster, or "
      "create ~/.kube/config");
}

}  // namespace tailor::kube
