// The real tailor-cluster binary killed with kill -9 and restarted on the same --dir, judged with
// the real kubectl: every object is back with its uid and resourceVersion, every create kubectl
// saw succeed before the kill is there, a watch resumed from before the restart gets 410 Expired,
// and a re-list then a watch from its resourceVersion work.
#include <gtest/gtest.h>

#include <atomic>
#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <thread>

#include "tests/embedded/kubectl_cluster_test.h"
#include "tests/support/child_process.h"

namespace tailor::embedded::testing {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using kube::testing::ChildProcess;

constexpr const char* kNodes = R"(nodes:
- name: node-1
  capacity: {cpu: "4", memory: 8Gi, pods: "110"}
)";

constexpr const char* kWidgetCrd = R"({"apiVersion":"apiextensions.k8s.io/v1",
 "kind":"CustomResourceDefinition","metadata":{"name":"widgets.example.com"},
 "spec":{"group":"example.com","scope":"Namespaced",
  "names":{"plural":"widgets","singular":"widget","kind":"Widget"},
  "versions":[{"name":"v1","served":true,"storage":true,
   "schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}})";

constexpr const char* kDeployment = R"({"apiVersion":"apps/v1","kind":"Deployment",
 "metadata":{"name":"web","namespace":"shop"},
 "spec":{"replicas":2,"selector":{"matchLabels":{"app":"web"}},
  "template":{"metadata":{"labels":{"app":"web"}},
   "spec":{"containers":[{"name":"c","image":"busybox",
    "resources":{"requests":{"cpu":"100m","memory":"64Mi"}}}]}}}})";

// What identifies every object: kind, namespace/name, uid, resourceVersion; one line each.
constexpr const char* kKinds =
    "namespaces,nodes,configmaps,secrets,deployments,replicasets,pods,"
    "customresourcedefinitions,widgets";
constexpr const char* kColumns =
    "-o custom-columns=KIND:.kind,NS:.metadata.namespace,NAME:.metadata.name,"
    "UID:.metadata.uid,RV:.metadata.resourceVersion --no-headers";

class DurableClusterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(::access(kKubectl, X_OK), 0) << kKubectl << " is missing";
    char tmpl[] = "/tmp/tailor-durable-test-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    std::ofstream(dir_ / "nodes.yaml") << kNodes;
  }

  void TearDown() override {
    cluster_.reset();
    fs::remove_all(dir_);
  }

  // Starts tailor-cluster on the test's state directory; returns once its kubeconfig is written
  // (it is written after the server listens).
  void start_cluster() {
    fs::remove(kubeconfig());
    cluster_ = std::make_unique<ChildProcess>(
        std::vector<std::string>{kube::testing::build_program("tailor-cluster").string(), "--dir",
                                 (dir_ / "state").string(), "--port", "0", "--write-kubeconfig",
                                 kubeconfig(), "--nodes", (dir_ / "nodes.yaml").string()},
        dir_ / "cluster.log");
    for (auto deadline = std::chrono::steady_clock::now() + 20s; !fs::exists(kubeconfig());
         std::this_thread::sleep_for(20ms)) {
      ASSERT_TRUE(cluster_->running()) << log();
      ASSERT_LT(std::chrono::steady_clock::now(), deadline) << log();
    }
  }

  std::string kubeconfig() const { return (dir_ / "kubeconfig").string(); }
  std::string log() const {
    std::ifstream in(dir_ / "cluster.log");
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

  KubectlResult kubectl(const std::string& args) { return run_kubectl(dir_, kubeconfig(), args); }

  void apply(const std::string& name, const std::string& manifest) {
    std::ofstream(dir_ / name) << manifest;
    KubectlResult r = kubectl("create -f " + name);
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }

  std::string objects() {
    KubectlResult r = kubectl(std::string("get ") + kKinds + " -A " + kColumns);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.out;
  }

  // The objects once the control loops are done with them (two equal reads 1 s apart, with the
  // deployment's two pods Running).
  std::string settled_objects() {
    std::string last;
    for (auto deadline = std::chrono::steady_clock::now() + 30s;
         std::chrono::steady_clock::now() < deadline; std::this_thread::sleep_for(1s)) {
      std::string now = objects();
      KubectlResult running =
          kubectl("get pods -n shop --field-selector=status.phase=Running -o name");
      if (now == last && std::count(running.out.begin(), running.out.end(), '\n') == 2) {
        return now;
      }
      last = now;
    }
    ADD_FAILURE() << "objects did not settle:\n" << last;
    return last;
  }

  std::string raw(const std::string& path) {
    KubectlResult r = kubectl("get --raw '" + path + "'");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.out;
  }

  fs::path dir_;
  std::unique_ptr<ChildProcess> cluster_;
};

TEST_F(DurableClusterTest, Kill9AndRestartKeepsEveryObjectAndExpiresOldWatches) {
  start_cluster();
  ASSERT_EQ(kubectl("create namespace shop").exit_code, 0);
  ASSERT_EQ(kubectl("-n shop create configmap settings --from-literal=size=2").exit_code, 0);
  ASSERT_EQ(kubectl("-n shop create secret generic key --from-literal=k=v").exit_code, 0);
  apply("crd.json", kWidgetCrd);
  for (int i = 0; kubectl("get widgets").exit_code != 0; ++i) {
    ASSERT_LT(i, 100) << "the CRD was not served";
    std::this_thread::sleep_for(50ms);
  }
  apply(
      "widget.json",
      R"({"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w","namespace":"shop"},"spec":{"size":3}})");
  apply("deployment.json", kDeployment);
  const std::string before = settled_objects();
  const std::string old_rv(boost::json::parse(raw("/api/v1/namespaces/shop/configmaps/settings"))
                               .at("metadata")
                               .at("resourceVersion")
                               .as_string());
  ASSERT_FALSE(old_rv.empty());

  // Mid-run: kubectl creates ConfigMaps one after another while tailor-cluster is killed.
  std::set<std::string> acknowledged;  // read once the writer has ended
  std::atomic<int> created{0};
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    for (int i = 0; !stop; ++i) {
      std::string name = "c-" + std::to_string(i);
      if (run_kubectl(dir_, kubeconfig(), "-n shop create configmap " + name).exit_code == 0) {
        acknowledged.insert(name);
        ++created;
      }
    }
  });
  while (created < 5) std::this_thread::sleep_for(20ms);
  cluster_->kill9();
  stop = true;
  writer.join();

  start_cluster();
  KubectlResult cms = kubectl("-n shop get configmaps -o name");
  for (const std::string& name : acknowledged) {
    EXPECT_NE(cms.out.find("configmap/" + name + "\n"), std::string::npos)
        << name << " was acknowledged before the kill but is gone:\n"
        << cms.out;
  }
  // Every object of before, with its uid and resourceVersion (the ConfigMaps written during the
  // kill come on top).
  std::string after = objects();
  std::istringstream lines(before);
  for (std::string line; std::getline(lines, line);) {
    EXPECT_NE(after.find(line + "\n"), std::string::npos) << "lost or changed: " << line;
  }

  // A watch resumed from before the restart: 410 Expired, as from kube-apiserver.
  std::string list = raw("/api/v1/namespaces/shop/configmaps");
  const std::string now_rv(
      boost::json::parse(list).at("metadata").at("resourceVersion").as_string());
  std::string gone =
      raw("/api/v1/namespaces/shop/configmaps?watch=1&timeoutSeconds=2&resourceVersion=" + old_rv);
  // The message names the oldest resourceVersion the server can still serve from: after the
  // restart, and no later than the list's (the cluster's own controllers, e.g. default/kubernetes'
  // Endpoints naming the restarted server's new port, may have written in between).
  const std::string prefix = "too old resource version: " + old_rv + " (";
  const std::size_t at = gone.find(prefix);
  ASSERT_NE(at, std::string::npos) << gone;
  const std::size_t close = gone.find(')', at);
  ASSERT_NE(close, std::string::npos) << gone;
  const std::string seen = gone.substr(at + prefix.size(), close - at - prefix.size());
  EXPECT_GT(std::stoll(seen), std::stoll(old_rv)) << gone;
  EXPECT_LE(std::stoll(seen), std::stoll(now_rv)) << gone;
  EXPECT_EQ(gone, R"({"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},)"
                  R"("status":"Failure","message":")" +
                      prefix + seen + R"x()","reason":"Expired","code":410}})x" + "\n");
  // The re-list's resourceVersion resumes: a change after it arrives.
  FILE* watch = start_kubectl(
      dir_, kubeconfig(),
      "get --raw '/api/v1/namespaces/shop/configmaps?watch=1&timeoutSeconds=3&resourceVersion=" +
          now_rv + "'");
  ASSERT_EQ(kubectl("-n shop create configmap after-restart").exit_code, 0);
  KubectlResult events = finish_kubectl(dir_, watch);
  EXPECT_NE(events.out.find(R"("type":"ADDED","object":{"kind":"ConfigMap")"), std::string::npos)
      << events.out << events.err;
  EXPECT_NE(events.out.find(R"("name":"after-restart")"), std::string::npos) << events.out;
  EXPECT_EQ(events.out.find("c-0"), std::string::npos) << "events from before the re-list";
}

TEST_F(DurableClusterTest, UnreadableDatabaseStopsTheServerWithTheReason) {
  fs::create_directories(dir_ / "state");
  std::ofstream(dir_ / "state" / "objects.db") << std::string(8192, 'x');
  ChildProcess cluster({kube::testing::build_program("tailor-cluster").string(), "--dir",
                        (dir_ / "state").string(), "--port", "0"},
                       dir_ / "cluster.log");
  for (int i = 0; cluster.running(); ++i) {
    ASSERT_LT(i, 500) << "tailor-cluster kept running on a corrupt database";
    std::this_thread::sleep_for(20ms);
  }
  EXPECT_EQ(cluster.exit_code(), 1);
  EXPECT_EQ(log(), "tailor-cluster: object database " + (dir_ / "state" / "objects.db").string() +
                       ": cannot switch to WAL journal: file is not a database\n");
  EXPECT_EQ(fs::file_size(dir_ / "state" / "objects.db"), 8192u) << "the file was changed";
}

TEST_F(DurableClusterTest, UnknownSyncModeIsRefused) {
  ChildProcess cluster({kube::testing::build_program("tailor-cluster").string(), "--dir",
                        (dir_ / "state").string(), "--port", "0", "--sync", "sometimes"},
                       dir_ / "cluster.log");
  for (int i = 0; cluster.running(); ++i) {
    ASSERT_LT(i, 500) << "tailor-cluster started with --sync sometimes";
    std::this_thread::sleep_for(20ms);
  }
  EXPECT_EQ(cluster.exit_code(), 1);
  EXPECT_EQ(log(), "tailor-cluster: --sync: want full or normal, got \"sometimes\"\n");
  EXPECT_FALSE(fs::exists(dir_ / "state" / "objects.db"));
}

}  // namespace
}  // namespace tailor::embedded::testing
