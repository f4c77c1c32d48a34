// Kubeconfig loading (hand-written and written by the real kubectl), in-cluster config, and the
// --kubeconfig / $KUBECONFIG / in-cluster / ~/.kube/config order.
#include "kube/client/config.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "kube/client/rest_client.h"
#include "tests/support/test_api_server.h"

namespace tailor::kube {
namespace {

namespace fs = std::filesystem;

// A fresh temporary folder, removed afterwards.
class TempDir {
 public:
  TempDir() {
    static int counter = 0;
    path_ = fs::temp_directory_path() /
            ("tailor-config-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  const fs::path& path() const { return path_; }
  std::string write(const std::string& name, const std::string& text) const {
    fs::path file = path_ / name;
    fs::create_directories(file.parent_path());
    std::ofstream(file) << text;
    return file.string();
  }

 private:
  fs::path path_;
};

// Sets (or unsets, for nullptr) an environment variable for the scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    const char* old = std::getenv(name);
    if (old != nullptr) old_ = old;
    value == nullptr ? ::unsetenv(name) : ::setenv(name, value, 1);
  }
  ~ScopedEnv() { old_ ? ::setenv(name_.c_str(), old_->c_str(), 1) : ::unsetenv(name_.c_str()); }

 private:
  std::string name_;
  std::optional<std::string> old_;
};

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(no ConfigError)";
}

const char* kHandWritten = R"(apiVersion: v1
kind: Config
current-context: dev
clusters:
- name: dev-cluster
  cluster:
    server: https://dev.example.com:6443
    certificate-authority: certs/ca.crt
    tls-server-name: kubernetes.default
- name: prod-cluster
  cluster:
    server: https://10.1.2.3
    certificate-authority-data: UFJPRC1DQQ==
    insecure-skip-tls-verify: true
users:
- name: dev-user
  user:
    client-certificate: certs/client.crt
    client-key: /ABSOLUTE/certs/client.key
- name: prod-user
  user:
    tokenFile: ../tokens/prod
- name: cloud-user
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      command: ./bin/get-token
      args: ["--region", "eu"]
      env:
      - name: PROFILE
        value: ops
      interactiveMode: Never
      provideClusterInfo: true
contexts:
- name: dev
  context:
    cluster: dev-cluster
    user: dev-user
    namespace: team-a
- name: prod
  context:
    cluster: prod-cluster
    user: prod-user
- name: cloud
  context:
    cluster: prod-cluster
    user: cloud-user
)";

class KubeconfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_.write("kube/certs/ca.crt", "DEV-CA");
    dir_.write("kube/certs/client.crt", "DEV-CERT");
    dir_.write("kube/certs/client.key", "DEV-KEY");
    std::string text = kHandWritten;
    text.replace(text.find("/ABSOLUTE"), 9, (dir_.path() / "kube").string());
    file_ = dir_.write("kube/config", text);
  }
  TempDir dir_;
  std::string file_;
};

TEST_F(KubeconfigTest, CurrentContextWithFilesRelativeToTheKubeconfig) {
  RestConfig config = load_kubeconfig(file_);
  EXPECT_EQ(config.server, "https://dev.example.com:6443");
  EXPECT_EQ(config.ca_pem, "DEV-CA");
  EXPECT_EQ(config.tls_server_name, "kubernetes.default");
  EXPECT_FALSE(config.insecure_skip_tls_verify);
  EXPECT_EQ(config.client_cert_pem, "DEV-CERT");
  EXPECT_EQ(config.client_key_pem, "DEV-KEY");
  EXPECT_EQ(config.namespace_, "team-a");
  EXPECT_FALSE(config.exec);
}

TEST_F(KubeconfigTest, NamedContextWithDataAndTokenFile) {
  RestConfig config = load_kubeconfig(file_, "prod");
  EXPECT_EQ(config.server, "https://10.1.2.3");
  EXPECT_EQ(config.ca_pem, "PROD-CA");
  EXPECT_TRUE(config.insecure_skip_tls_verify);
  EXPECT_EQ(config.bearer_token_file, (dir_.path() / "tokens/prod").string());
  EXPECT_EQ(config.namespace_, "");
}

TEST_F(KubeconfigTest, ExecPlugin) {
  RestConfig config = load_kubeconfig(file_, "cloud");
  ASSERT_TRUE(config.exec);
  EXPECT_EQ(config.exec->api_version, "client.authentication.k8s.io/v1beta1");
  EXPECT_EQ(config.exec->command, (dir_.path() / "kube/bin/get-token").string());
  EXPECT_EQ(config.exec->args, (std::vector<std::string>{"--region", "eu"}));
  ASSERT_EQ(config.exec->env.size(), 1u);
  EXPECT_EQ(config.exec->env[0], (std::pair<std::string, std::string>{"PROFILE", "ops"}));
  EXPECT_EQ(config.exec->interactive_mode, "Never");
  EXPECT_TRUE(config.exec->provide_cluster_info);
}

TEST_F(KubeconfigTest, ClearErrors) {
  struct Case {
    std::string yaml;
    const char* complaint;
  };
  const std::string cluster = "clusters:\n- name: c\n  cluster:\n    server: https://x\n";
  const std::string context = "contexts:\n- name: ctx\n  context:\n    cluster: c\n    user: u\n";
  for (const Case& c : {
           Case{"a: [b", "not valid YAML"},
           Case{"- just\n- a list\n", "not a YAML mapping"},
           Case{cluster, "no current-context"},
           Case{"current-context: nope\n" + cluster + context, "no entry named 'nope' in contexts"},
           Case{"current-context: ctx\n" + context, "no entry named 'c' in clusters"},
           Case{"current-context: ctx\n" + cluster + context, "no entry named 'u' in users"},
           Case{"current-context: ctx\nclusters:\n- name: c\n  cluster:\n    "
                "certificate-authority-data: QQ==\n" +
                    context + "users:\n- name: u\n  user: {}\n",
                "no server"},
           Case{
               "current-context: ctx\nclusters:\n- name: c\n  cluster:\n    server: https://x\n    "
               "certificate-authority-data: '!!not base64'\n" +
                   context + "users:\n- name: u\n  user: {}\n",
               "not valid base64"},
           Case{"current-context: ctx\n" + cluster + context +
                    "users:\n- name: u\n  user:\n    client-certificate-data: QQ==\n",
                "needs its key"},
           Case{"current-context: ctx\n" + cluster + context +
                    "users:\n- name: u\n  user:\n    auth-provider:\n      name: gcp\n",
                "auth-provider"},
           Case{
               "current-context: ctx\nclusters:\n- name: c\n  cluster:\n    server: https://x\n    "
               "proxy-url: http://proxy:3128\n" +
                   context + "users:\n- name: u\n  user: {}\n",
               "proxy-url is not supported"},
           Case{"current-context: ctx\n" + cluster + context +
                    "users:\n- name: u\n  user:\n    exec:\n      apiVersion: "
                    "client.authentication.k8s.io/v1alpha1\n      command: x\n",
                "unsupported apiVersion"},
           Case{"current-context: ctx\n" + cluster + context +
                    "users:\n- name: u\n  user:\n    client-certificate: missing.crt\n    "
                    "client-key: missing.key\n",
                "cannot read client certificate"},
           Case{
               "current-context: ctx\nclusters:\n- name: c\n  cluster:\n    server: https://x\n    "
               "insecure-skip-tls-verify: maybe\n" +
                   context + "users:\n- name: u\n  user: {}\n",
               "true or false"},
       }) {
    std::string file = dir_.write("bad", c.yaml);
    std::string message = error_of([&] { load_kubeconfig(file); });
    EXPECT_NE(message.find(c.complaint), std::string::npos) << c.yaml << "\n-> " << message;
  }
  EXPECT_NE(
      error_of([&] { load_kubeconfig((dir_.path() / "absent").string()); }).find("cannot read"),
      std::string::npos);
}

// --- the real kubectl ----------------------------------------------------------------------

// Runs kubectl with args; fails the test (loudly) when kubectl is missing or fails.
void kubectl(const std::string& args) {
  ASSERT_EQ(std::system("command -v kubectl > /dev/null"), 0)
      << "kubectl is not on PATH: this test needs the real kubectl (scripts/install-deps.sh)";
  std::string command = "kubectl " + args + " > /dev/null";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
}

TEST(KubectlKubeconfig, LoadsWhatKubectlWritesAndReachesTheServer) {
  testing::TestApiServer server({.tls = true, .require_client_cert = true});
  server.on("GET", "/api/v1/namespaces/prod/pods", [](http::Exchange& ex) {
    ex.respond(testing::json_response(
        200,
        R"({"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"5"},"items":[]})"));
  });
  TempDir dir;
  std::string ca = dir.write("ca.crt", server.ca().cert_pem);
  std::string cert = dir.write("client.crt", server.client_certificate().cert_pem);
  std::string key = dir.write("client.key", server.client_certificate().key_pem);
  std::string file = (dir.path() / "kubeconfig").string();
  std::string k = " --kubeconfig " + file;
  kubectl("config set-cluster test --server=" + server.url() + " --certificate-authority=" + ca +
          " --embed-certs=true" + k);
  kubectl("config set-cluster by-file --server=https://10.0.0.1:6443 --certificate-authority=" +
          ca + " --tls-server-name=kubernetes.default" + k);
  kubectl(
      "config set-cluster insecure --server=https://10.0.0.2:6443 --insecure-skip-tls-verify=true" +
      k);
  kubectl("config set-credentials admin --client-certificate=" + cert + " --client-key=" + key +
          " --embed-certs=true" + k);
  kubectl("config set-credentials robot --token=robot-token" + k);
  kubectl("config set-context main --cluster=test --user=admin --namespace=prod" + k);
  kubectl("config set-context bot --cluster=by-file --user=robot" + k);
  kubectl("config set-context loose --cluster=insecure --user=robot" + k);
  kubectl("config use-context main" + k);
  if (HasFatalFailure()) return;

  RestConfig main = load_kubeconfig(file);
  EXPECT_EQ(main.server, server.url());
  EXPECT_EQ(main.ca_pem, server.ca().cert_pem);
  EXPECT_EQ(main.client_cert_pem, server.client_certificate().cert_pem);
  EXPECT_EQ(main.client_key_pem, server.client_certificate().key_pem);
  EXPECT_EQ(main.namespace_, "prod");

  RestConfig bot = load_kubeconfig(file, "bot");
  EXPECT_EQ(bot.server, "https://10.0.0.1:6443");
  EXPECT_EQ(bot.ca_pem, server.ca().cert_pem);  // read from the file kubectl recorded
  EXPECT_EQ(bot.tls_server_name, "kubernetes.default");
  EXPECT_EQ(bot.bearer_token, "robot-token");
  EXPECT_TRUE(bot.client_cert_pem.empty());

  EXPECT_TRUE(load_kubeconfig(file, "loose").insecure_skip_tls_verify);

  // The loaded config really authenticates with the embedded client certificate.
  RestClient client(main);
  std::string list = client.list({resources::kPods, main.namespace_});
  EXPECT_NE(list.find("\"PodList\""), std::string::npos);
  EXPECT_EQ(server.requests().at(0).peer_common_name, "tailor-test");
}

// --- in-cluster and the lookup order -------------------------------------------------------

TEST(InClusterConfig, ReadsTheServiceAccount) {
  TempDir dir;
  dir.write("token", "sa-token\n");
  dir.write("ca.crt", "CLUSTER-CA");
  dir.write("namespace", "tailor-system\n");
  ScopedEnv host("KUBERNETES_SERVICE_HOST", "10.96.0.1");
  ScopedEnv port("KUBERNETES_SERVICE_PORT", "443");
  RestConfig config = in_cluster_config(dir.path().string());
  EXPECT_EQ(config.server, "https://10.96.0.1:443");
  EXPECT_EQ(config.ca_pem, "CLUSTER-CA");
  EXPECT_EQ(config.bearer_token_file, (dir.path() / "token").string());
  EXPECT_EQ(config.namespace_, "tailor-system");
}

TEST(InClusterConfig, Ipv6ServiceHost) {
  TempDir dir;
  dir.write("token", "t");
  dir.write("ca.crt", "CA");
  ScopedEnv host("KUBERNETES_SERVICE_HOST", "fd00::1");
  ScopedEnv port("KUBERNETES_SERVICE_PORT", "6443");
  EXPECT_EQ(in_cluster_config(dir.path().string()).server, "https://[fd00::1]:6443");
}

TEST(InClusterConfig, ClearErrorsOutsideACluster) {
  TempDir dir;
  {
    ScopedEnv host("KUBERNETES_SERVICE_HOST", nullptr);
    EXPECT_NE(
        error_of([&] { in_cluster_config(dir.path().string()); }).find("not running in a cluster"),
        std::string::npos);
  }
  ScopedEnv host("KUBERNETES_SERVICE_HOST", "10.96.0.1");
  ScopedEnv port("KUBERNETES_SERVICE_PORT", "443");
  EXPECT_NE(error_of([&] { in_cluster_config(dir.path().string()); }).find("service account token"),
            std::string::npos);
}

TEST(LoadConfig, FlagThenEnvironmentThenHome) {
  TempDir dir;
  auto kubeconfig = [&](const std::string& name, const std::string& server) {
    return dir.write(name, "current-context: c\nclusters:\n- name: x\n  cluster:\n    server: " +
                               server + "\ncontexts:\n- name: c\n  context:\n    cluster: x\n");
  };
  std::string flag = kubeconfig("flag", "https://flag");
  std::string env = kubeconfig("env", "https://env");
  kubeconfig("home/.kube/config", "https://home");
  ScopedEnv home("HOME", (dir.path() / "home").c_str());
  ScopedEnv service("KUBERNETES_SERVICE_HOST", nullptr);
  {
    ScopedEnv variable("KUBECONFIG", (env + ":" + flag).c_str());
    EXPECT_EQ(load_config(flag).server, "https://flag");
    EXPECT_EQ(load_config("").server, "https://env");
  }
  ScopedEnv no_variable("KUBECONFIG", nullptr);
  EXPECT_EQ(load_config("").server, "https://home");
  ScopedEnv empty_home("HOME", dir.path().c_str());
  EXPECT_NE(error_of([] { load_config(""); }).find("no Kubernetes configuration"),
            std::string::npos);
}

}  // namespace
}  // namespace tailor::kube
