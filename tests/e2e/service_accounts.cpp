#include "tests/e2e/service_accounts.h"

#include <yaml-cpp/yaml.h>

#include <csignal>
#include <fstream>
#include <thread>

#include "tests/charts/api_calls.h"
#include "tests/charts/chart_files.h"
#include "tests/e2e/e2e_cluster.h"
#include "tests/e2e/restart_process.h"

namespace tailor::e2e {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

const char* const kProcesses[] = {"controller", "node-agent"};

fs::path kubeconfig_of(const fs::path& dir, const std::string& process) {
  return dir / "sa" / (process + ".kubeconfig");
}

void check(const CommandResult& r, const std::string& what) {
  if (r.exit_code != 0) throw std::runtime_error(what + " failed: " + r.err);
}

// The chart's ServiceAccounts and RBAC as Helm renders them for this environment.
std::string chart_rbac() {
  static const std::set<std::string> kKinds = {"ServiceAccount", "ClusterRole",
                                               "ClusterRoleBinding", "Role", "RoleBinding"};
  std::string out;
  for (const auto& doc : charts::render_documents(kEnvironmentValues)) {
    if (kKinds.count(doc.node["kind"].as<std::string>(""))) out += "---\n" + doc.text + "\n";
  }
  return out;
}

// A ClusterRole (and its binding) for the calls only `tailor cluster up` has the processes make
// (charts/api-calls.yaml, `when: {flag: ...}`: the controller registering its own webhook).
std::string cluster_up_rbac() {
  const auto calls = charts::load_api_calls(charts::chart_dir().parent_path() / "api-calls.yaml");
  std::string out;
  for (const char* process : kProcesses) {
    YAML::Node role;
    role["apiVersion"] = "rbac.authorization.k8s.io/v1";
    role["kind"] = "ClusterRole";
    role["metadata"]["name"] = std::string("tailor-cluster-up-") + process;
    role["rules"] = YAML::Node(YAML::NodeType::Sequence);
    for (const charts::ApiCall& c : calls) {
      if (c.binary != process || !c.when.count("flag")) continue;
      YAML::Node rule;
      rule["apiGroups"].push_back(c.group);
      rule["resources"].push_back(c.resource);
      for (const std::string& v : c.verbs) rule["verbs"].push_back(v);
      role["rules"].push_back(rule);
    }
    YAML::Node binding;
    binding["apiVersion"] = "rbac.authorization.k8s.io/v1";
    binding["kind"] = "ClusterRoleBinding";
    binding["metadata"]["name"] = std::string("tailor-cluster-up-") + process;
    binding["roleRef"]["apiGroup"] = "rbac.authorization.k8s.io";
    binding["roleRef"]["kind"] = "ClusterRole";
    binding["roleRef"]["name"] = std::string("tailor-cluster-up-") + process;
    YAML::Node subject;
    subject["kind"] = "ServiceAccount";
    subject["name"] = std::string("tailor-") + process;
    subject["namespace"] = "kube-system";
    binding["subjects"].push_back(subject);
    out += "---\n" + YAML::Dump(role) + "\n---\n" + YAML::Dump(binding) + "\n";
  }
  return out;
}

void apply(E2eCluster& cluster, const std::string& name, const std::string& yaml) {
  const fs::path file = cluster.dir() / "sa" / name;
  std::ofstream(file) << yaml;
  check(cluster.kubectl("apply -f " + file.string()), "kubectl apply -f " + file.string());
}

// The administrator's kubeconfig with every user's credentials replaced by `token`, written
// over the link (rename replaces the link, not what it points to).
void write_token_kubeconfig(E2eCluster& cluster, const std::string& process,
                            const std::string& token) {
  YAML::Node config = YAML::LoadFile(cluster.kubeconfig());
  for (auto user : config["users"]) {
    YAML::Node credentials;
    credentials["token"] = token;
    user["user"] = credentials;
  }
  const fs::path target = kubeconfig_of(cluster.dir(), process);
  const fs::path staged = target.string() + ".new";
  std::ofstream(staged) << YAML::Dump(config) << "\n";
  fs::rename(staged, target);
}

std::string token_of(E2eCluster& cluster, const std::string& process) {
  CommandResult r =
      cluster.kubectl("create token tailor-" + process + " -n kube-system --duration=24h");
  check(r, "kubectl create token tailor-" + process);
  while (!r.out.empty() && r.out.back() == '\n') r.out.pop_back();
  return r.out;
}

// SIGTERM to the process a pid file names, then wait for its supervisor to start it again.
void restart(const fs::path& pid_file) {
  const pid_t old = live_pid(pid_file);
  if (old == 0) throw std::runtime_error("nothing runs from " + pid_file.string());
  if (!stop_process(old, SIGTERM, 30s)) {
    throw std::runtime_error("process " + std::to_string(old) + " did not stop");
  }
  const auto until = std::chrono::steady_clock::now() + 60s;
  while (live_pid(pid_file) == 0 || live_pid(pid_file) == old) {
    if (std::chrono::steady_clock::now() > until) {
      throw std::runtime_error("not started again: " + pid_file.string());
    }
    std::this_thread::sleep_for(100ms);
  }
}

}  // namespace

std::vector<std::string> service_account_up_args(const fs::path& dir) {
  fs::create_directories(dir / "sa");
  std::vector<std::string> args = {"--cluster-arg=--audit-log-path=" +
                                   (dir / "audit.log").string()};
  for (const std::string process : kProcesses) {
    const fs::path link = kubeconfig_of(dir, process);
    fs::remove(link);
    fs::create_symlink(dir / "kubeconfig", link);
    const std::string flag = process == "controller" ? "--controller-arg" : "--agent-arg";
    args.push_back(flag + "=--kubeconfig=" + link.string());
  }
  return args;
}

void run_under_chart_service_accounts(E2eCluster& cluster) {
  apply(cluster, "chart-rbac.yaml", chart_rbac());
  apply(cluster, "cluster-up-rbac.yaml", cluster_up_rbac());
  for (const std::string process : kProcesses) {
    write_token_kubeconfig(cluster, process, token_of(cluster, process));
  }
  restart(cluster.dir() / "controller.pid");
  for (int node = 1; fs::exists(cluster.dir() / ("node-" + std::to_string(node))); ++node) {
    restart(cluster.dir() / ("node-" + std::to_string(node)) / "agent.pid");
  }
  check(cluster.kubectl("wait --for=condition=Ready node --all --timeout=90s"),
        "the nodes Ready under the node agent's ServiceAccount");
  const auto until = std::chrono::steady_clock::now() + 60s;
  while (lease_holder(cluster) != identity_of(live_pid(cluster.dir() / "controller.pid"))) {
    if (std::chrono::steady_clock::now() > until) {
      throw std::runtime_error("the controller does not lead under its ServiceAccount:\n" +
                               cluster.controller_log_tail());
    }
    std::this_thread::sleep_for(250ms);
  }
}

}  // namespace tailor::e2e
