// `tailor demo` run to the end on a real local cluster (tailor cluster up: two nodes on a real
// containerd, tailor-controller), the CI proof of the demo: its exit code and the figures of its
// --json summary, which the demo reads back from the API; once more with tailor-cluster killed
// (kill -9) mid-run; and once with Tailor installed as its users install it (--in-cluster: the
// image of `make image`, the chart rendered by Helm's engine, pods under their ServiceAccounts).
// Needs root; fails loudly without it.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <boost/json.hpp>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "tests/charts/child_process.h"

namespace {
namespace fs = std::filesystem;
namespace bj = boost::json;
using tailor::charts::CommandResult;
using tailor::charts::run_command;

fs::path tailor_binary() {
  if (const char* dir = std::getenv("TAILOR_BIN_DIR")) return fs::path(dir) / "tailor";
  return fs::read_symlink("/proc/self/exe").parent_path().parent_path() / "bin" / "tailor";
}

std::string read(const fs::path& file) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::int64_t number(const bj::object& o, std::string_view key) {
  const bj::value* v = o.if_contains(key);
  return v && v->is_int64() ? v->as_int64() : -1;
}

// A work directory for one demo run and the shell command that runs it (output to demo.log).
struct DemoRun {
  fs::path work;
  std::string flags{};  // more flags of `tailor demo`
  fs::path json() const { return work / "summary.json"; }
  fs::path log() const { return work / "demo.log"; }
  std::string command() const {
    return tailor_binary().string() + " demo --dir " + (work / "cluster").string() + " --json " +
           json().string() + " --timeout 240" + flags + " > " + log().string() + " 2>&1";
  }
};

DemoRun new_run() {
  char pattern[] = "/tmp/tailor-demo-test-XXXXXX";
  if (!::mkdtemp(pattern)) throw std::runtime_error("mkdtemp failed");
  return {pattern};
}

void check_requirements() {
  ASSERT_EQ(::geteuid(), 0u) << "tailor demo starts `tailor cluster up`, which needs root";
  ASSERT_TRUE(fs::exists(tailor_binary()))
      << tailor_binary() << " missing: build the tailor target";
}

// The demo's exit status (from waitpid or system) and its --json summary: every case happened,
// no container restarted, the Infeasible pod was replaced on the big node, nothing left running
// (unless `kept`: --keep).
void check_completed(const DemoRun& run, int status, bool kept = false) {
  const std::string output = read(run.log());
  ASSERT_TRUE(WIFEXITED(status)) << output;
  EXPECT_EQ(WEXITSTATUS(status), 0) << output;
  ASSERT_TRUE(fs::exists(run.json())) << output;

  const bj::object summary = bj::parse(read(run.json())).as_object();
  EXPECT_GE(number(summary, "in_place_resizes"), 1) << output;
  EXPECT_EQ(number(summary, "restarts_caused"), 0) << output;
  const bj::object& recreations = summary.at("recreations").as_object();
  EXPECT_GE(number(recreations, "Infeasible"), 1) << output;
  EXPECT_GE(number(summary, "deferred_completed"), 1) << output;
  EXPECT_TRUE(summary.at("success").as_bool()) << output;

  // The Infeasible pod left the small node; its replacement (a new UID) runs on the big one.
  const std::string small = std::string(summary.at("nodes").at("small").at("name").as_string());
  const std::string big = std::string(summary.at("nodes").at("big").at("name").as_string());
  bool evicted_from_small = false, replaced_on_big = false;
  for (const auto& p : summary.at("pods").as_array()) {
    const bj::object& pod = p.as_object();
    if (pod.at("evicted").as_bool() && pod.at("first_node").as_string() == small) {
      evicted_from_small = true;
    }
    if (pod.at("replacement").as_bool() && pod.at("last_node").as_string() == big) {
      replaced_on_big = true;
    }
    if (number(pod, "in_place_resizes") > 0) {
      EXPECT_EQ(number(pod, "restarts"), 0) << pod.at("name").as_string();
    }
  }
  EXPECT_TRUE(evicted_from_small) << output;
  EXPECT_TRUE(replaced_on_big) << output;
  if (kept) return;
  // The cluster was stopped: no process of it is left behind.
  EXPECT_FALSE(fs::exists(run.work / "cluster" / "cluster.pid")) << output;
  EXPECT_FALSE(fs::exists(run.work / "cluster" / "cluster.supervisor.pid")) << output;
}

TEST(TailorDemo, RunsEveryCaseToTheEndAndReportsItInJson) {
  check_requirements();
  if (HasFatalFailure()) return;
  const DemoRun run = new_run();
  check_completed(run, std::system(run.command().c_str()));
  if (!HasFailure()) fs::remove_all(run.work);
}

// kill -9 of tailor-cluster once the first in-place resize is seen: its supervisor starts it
// again on the same objects, every informer re-lists, no pod is lost or restarted, and the demo
// still completes every case.
TEST(TailorDemo, CompletesThroughAKill9OfTailorClusterMidRun) {
  check_requirements();
  if (HasFatalFailure()) return;
  const DemoRun run = new_run();
  const pid_t demo = ::fork();
  ASSERT_GE(demo, 0);
  if (demo == 0) {
    ::execl("/bin/sh", "sh", "-c", run.command().c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(200);
  while (read(run.log()).find("resized in place") == std::string::npos &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  long cluster = 0;
  std::ifstream(run.work / "cluster" / "cluster.pid") >> cluster;
  const bool killed = cluster > 1 && ::kill(static_cast<pid_t>(cluster), SIGKILL) == 0;
  int status = 0;
  ::waitpid(demo, &status, 0);
  ASSERT_TRUE(killed) << "tailor-cluster was not running at the first resize:\n" << read(run.log());
  EXPECT_NE(read(run.work / "cluster" / "cluster.log")
                .find("tailor supervise: tailor-cluster (pid " + std::to_string(cluster) +
                      ") was killed by signal 9; starting it again in 1 s"),
            std::string::npos);
  check_completed(run, status);
  if (!HasFailure()) fs::remove_all(run.work);
}

// --- Tailor installed in the cluster (tailor demo --in-cluster) ---

// One request of tailor-cluster's audit log (--audit-log-path, which --install-tailor turns on).
struct Audited {
  std::string user, verb, resource, subresource, pod;  // pod: the bound token's pod-name
};

std::vector<Audited> audit_log(const fs::path& file) {
  std::vector<Audited> out;
  std::ifstream in(file);
  auto text = [](const bj::object& o, std::string_view key) {
    const bj::value* v = o.if_contains(key);
    return v && v->is_string() ? std::string(v->as_string()) : std::string();
  };
  for (std::string line; std::getline(in, line);) {
    // The kept cluster still writes: a last line without its newline is an event half written.
    if (in.eof()) break;
    const bj::object event = bj::parse(line).as_object();
    const bj::object& user = event.at("user").as_object();
    Audited a{.user = text(user, "username"), .verb = text(event, "verb")};
    if (const bj::value* extra = user.if_contains("extra")) {
      if (const bj::value* pod =
              extra->as_object().if_contains("authentication.kubernetes.io/pod-name")) {
        a.pod = std::string(pod->as_array().at(0).as_string());
      }
    }
    if (const bj::value* ref = event.if_contains("objectRef")) {
      a.resource = text(ref->as_object(), "resource");
      a.subresource = text(ref->as_object(), "subresource");
    }
    out.push_back(std::move(a));
  }
  return out;
}

// What would let a pod act as the administrator: the admin's token and the keys the cluster
// signs certificates and tokens with (a line of each PEM body is enough to recognize it).
std::vector<std::string> admin_secrets(const fs::path& dir) {
  std::string token = read(dir / "cluster" / "token");
  while (!token.empty() && std::isspace(static_cast<unsigned char>(token.back()))) token.pop_back();
  std::vector<std::string> out{token};
  for (const char* key : {"ca.key", "sa.key"}) {
    std::istringstream pem(read(dir / "cluster" / key));
    std::string line;
    std::getline(pem, line);  // -----BEGIN ...
    std::getline(pem, line);
    out.push_back(line);
  }
  return out;
}

// Every file the environment's nodes can hand a pod: each node's hostPath root (links not
// followed: the socket and the machine's cgroups) and the pods' volumes the host agents wrote.
std::vector<fs::path> files_pods_can_see(const fs::path& dir) {
  std::vector<fs::path> out;
  for (int n = 1; fs::exists(dir / ("node-" + std::to_string(n))); ++n) {
    const fs::path node = dir / ("node-" + std::to_string(n));
    for (const fs::path& top : {node / "root", node / "agent" / "pods"}) {
      std::error_code ec;
      for (auto it = fs::recursive_directory_iterator(top, ec);
           !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (it->is_regular_file() && !it->is_symlink()) out.push_back(it->path());
      }
    }
  }
  return out;
}

// What --install-tailor needs is looked for before anything starts, and its absence says what to
// build; the flags that go with it are refused without it.
TEST(TailorClusterUp, InstallTailorSaysWhatToBuildBeforeStartingAnything) {
  check_requirements();
  if (HasFatalFailure()) return;
  const DemoRun run = new_run();
  const std::string up = tailor_binary().string() + " cluster up --dir " +
                         (run.work / "cluster").string() + " --install-tailor ";
  const CommandResult no_image =
      run_command(up + "--image " + (run.work / "missing.oci.tar").string());
  EXPECT_EQ(no_image.exit_code, 1) << no_image.output;
  EXPECT_NE(no_image.output.find("missing.oci.tar is missing: build it with `sudo make image`"),
            std::string::npos)
      << no_image.output;
  std::ofstream(run.work / "image.oci.tar").flush();
  const CommandResult no_renderer =
      run_command(up + "--image " + (run.work / "image.oci.tar").string() + " --helm-render " +
                  (run.work / "helm-render").string());
  EXPECT_NE(no_renderer.output.find("build it with `cmake --build build --target helm-render`"),
            std::string::npos)
      << no_renderer.output;
  for (const CommandResult& r : {no_image, no_renderer}) {
    EXPECT_EQ(r.output.find("containerd at"), std::string::npos) << "a node was started:\n"
                                                                 << r.output;
    EXPECT_FALSE(fs::exists(run.work / "cluster" / "cluster.pid"));
  }
  const CommandResult without = run_command(tailor_binary().string() + " cluster up --dir " +
                                            (run.work / "cluster").string() + " --image x.tar");
  EXPECT_EQ(without.exit_code, 2);
  EXPECT_NE(without.output.find("--image and --helm-render go with --install-tailor"),
            std::string::npos)
      << without.output;
  if (!HasFailure()) fs::remove_all(run.work);
}

// The value of one series in a Prometheus text exposition; -1 when it is not there.
double sample(const std::string& text, const std::string& series) {
  const auto at = text.find("\n" + series + " ");
  return at == std::string::npos ? -1 : std::stod(text.substr(at + series.size() + 2));
}

// The demo's four cases with Tailor running as its users run it: the image `make image` builds
// (scripts/image/build.sh on this build's binaries) imported into each node, the chart rendered
// by helm-render and applied to kube-system, the controller Deployment and the node-agent
// DaemonSet Ready before the demo starts. Every request of the controller and the agents is
// made with a ServiceAccount token bound to one of their pods (the audit log), the controller's
// resizes included, and no file a pod can be given holds the administrator's token or the
// cluster's keys.
TEST(TailorDemo, RunsEveryCaseWithTailorInstalledInTheCluster) {
  check_requirements();
  if (HasFatalFailure()) return;
  const fs::path build = tailor_binary().parent_path().parent_path();
  const CommandResult image =
      run_command("bash " + (fs::path(TAILOR_SOURCE_DIR) / "scripts/image/build.sh").string() +
                  " " + build.string() + " " + (build / "image").string());
  ASSERT_EQ(image.exit_code, 0) << "make image's script failed:\n" << image.output;

  DemoRun run = new_run();
  run.flags = " --in-cluster --keep";
  const fs::path dir = run.work / "cluster";
  check_completed(run, std::system(run.command().c_str()), /*kept=*/true);
  const std::string output = read(run.log());
  EXPECT_NE(output.find("Deployment tailor-controller and DaemonSet tailor-node-agent Ready"),
            std::string::npos)
      << output;
  EXPECT_FALSE(fs::exists(dir / "controller.pid")) << "no tailor-controller beside the pods";
  // The chart's MutatingWebhookConfiguration reached the controller pod through its Service.
  if (fs::exists(run.json())) {
    const bj::object summary = bj::parse(read(run.json())).as_object();
    EXPECT_GE(number(summary, "right_sized_replacements"), 1) << output;
  }

  const std::string controller = "system:serviceaccount:kube-system:tailor-controller";
  const std::string agent = "system:serviceaccount:kube-system:tailor-node-agent";
  int controller_requests = 0, agent_requests = 0, resizes = 0;
  for (const Audited& a : audit_log(dir / "audit.log")) {
    if (a.user == controller) {
      ++controller_requests;
      EXPECT_EQ(a.pod.rfind("tailor-controller-", 0), 0u)
          << a.verb << " " << a.resource << ": not a token bound to a controller pod";
      if (a.resource == "pods" && a.subresource == "resize") ++resizes;
    } else if (a.user == agent) {
      ++agent_requests;
      EXPECT_EQ(a.pod.rfind("tailor-node-agent-", 0), 0u)
          << a.verb << " " << a.resource << ": not a token bound to an agent pod";
    }
  }
  std::cout << "[ in-cluster ] requests: controller " << controller_requests << " (resizes "
            << resizes << "), node agents " << agent_requests << "\n";
  EXPECT_GT(controller_requests, 0) << "audit log " << dir / "audit.log";
  EXPECT_GT(agent_requests, 0);
  EXPECT_GT(resizes, 0) << "the in-place resizes were the controller pod's";

  const std::vector<std::string> secrets = admin_secrets(dir);
  const std::vector<fs::path> files = files_pods_can_see(dir);
  std::cout << "[ in-cluster ] files a node can hand a pod, checked: " << files.size() << "\n";
  EXPECT_GT(files.size(), 4u);
  for (const fs::path& file : files) {
    const std::string content = read(file);
    for (const std::string& secret : secrets) {
      ASSERT_FALSE(secret.empty());
      EXPECT_EQ(content.find(secret), std::string::npos) << file << " holds an admin credential";
    }
  }
  const CommandResult pods =
      run_command("kubectl --kubeconfig " + (dir / "kubeconfig").string() +
                  " get pods -n kube-system -l app.kubernetes.io/name=tailor -o json");
  ASSERT_EQ(pods.exit_code, 0) << pods.output;
  for (const std::string& secret : secrets) {
    EXPECT_EQ(pods.output.find(secret), std::string::npos)
        << "a pod's spec holds an admin credential";
  }

  // One usage stream per node, the DaemonSet's: the host agents (the nodes' kubelets) have none,
  // and the controller pod took the agents' windows as their nodes'.
  for (int n = 1; fs::exists(dir / ("node-" + std::to_string(n))); ++n) {
    long pid = 0;
    std::ifstream(dir / ("node-" + std::to_string(n)) / "agent.pid") >> pid;
    std::string cmdline = read("/proc/" + std::to_string(pid) + "/cmdline");
    std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
    EXPECT_NE(cmdline.find("--host-path-root="), std::string::npos) << cmdline;
    EXPECT_EQ(cmdline.find("--usage-endpoint"), std::string::npos) << cmdline;
  }
  const CommandResult ip =
      run_command("kubectl --kubeconfig " + (dir / "kubeconfig").string() +
                  " get pods -n kube-system -l app.kubernetes.io/component=controller -o "
                  "jsonpath='{.items[0].status.podIP}'");
  ASSERT_EQ(ip.exit_code, 0) << ip.output;
  const CommandResult metrics = run_command("curl -sf http://" + ip.output + ":8080/metrics");
  ASSERT_EQ(metrics.exit_code, 0) << metrics.output;
  EXPECT_GT(sample(metrics.output, "tailor_controller_usage_windows_total{matched=\"true\"}"), 0)
      << "no window from the DaemonSet's agents";
  for (const char* reason : {"unauthenticated", "wrong_node"}) {
    EXPECT_EQ(sample(metrics.output, std::string("tailor_controller_usage_windows_rejected_total{"
                                                 "reason=\"") +
                                         reason + "\"}"),
              0)
        << reason;
  }

  const CommandResult down =
      run_command(tailor_binary().string() + " cluster down --dir " + dir.string());
  EXPECT_EQ(down.exit_code, 0) << down.output;
  if (!HasFailure()) fs::remove_all(run.work);
}

}  // namespace
