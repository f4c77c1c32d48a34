// metrics.k8s.io on tailor-cluster, judged by the real kubectl (`kubectl top`, `get --raw`): a
// Node names a kubelet endpoint (status.daemonEndpoints) served here by a fake kubelet whose
// /metrics/resource advances a second and a fixed CPU time per scrape, so the usage between two
// scrapes is exact. The end-to-end case with the node agent's own endpoint is
// tests/e2e/kubectl_top_test.cpp.
#include <gtest/gtest.h>

#include <atomic>
#include <boost/json.hpp>
#include <regex>
#include <thread>

#include "kube/http/server.h"
#include "tests/embedded/kubectl_cluster_test.h"

namespace tailor::embedded::testing {
namespace {

namespace bj = boost::json;

constexpr std::int64_t kStartMs = 1700000000000;

// Scrape i: time kStartMs + i s; web's container 0.5 s of CPU a second (500m), 50 MiB; a sidecar
// 0.02 s a second (20m), 4 KiB; the node 1.25 s a second (1250m), 1 GiB.
std::string kubelet_text(int i) {
  const std::string at = " " + std::to_string(kStartMs + i * 1000LL) + "\n";
  const auto cpu = [&](double per_second) { return std::to_string(per_second * i); };
  const std::string web = R"({container="app",namespace="default",pod="web"})";
  const std::string side = R"({container="side",namespace="default",pod="web"})";
  return "# HELP container_cpu_usage_seconds_total [STABLE] Cumulative cpu time\n"
         "# TYPE container_cpu_usage_seconds_total counter\n"
         "container_cpu_usage_seconds_total" +
         web + " " + cpu(0.5) + at + "container_cpu_usage_seconds_total" + side + " " + cpu(0.02) +
         at + "container_memory_working_set_bytes" + web + " 52428800" + at +
         "container_memory_working_set_bytes" + side + " 4096" + at +
         "container_start_time_seconds" + web + " 1.6999e+09" + at +
         "container_start_time_seconds" + side + " 1.6999e+09" + at +
         "node_cpu_usage_seconds_total " + cpu(1.25) + at +
         "node_memory_working_set_bytes 1073741824" + at + "scrape_error 0\n";
}

class MetricsApi : public ApiOnlyKubectlTest {
 protected:
  ClusterOptions cluster_options() override {
    ClusterOptions o = ApiOnlyKubectlTest::cluster_options();
    o.metric_resolution = std::chrono::milliseconds(100);
    return o;
  }

  void SetUp() override {
    ApiOnlyKubectlTest::SetUp();
    kubelet_ = std::make_unique<kube::http::Server>(
        kube::http::ServerOptions{}, [this](kube::http::Exchange& ex) {
          if (ex.request().path != "/metrics/resource") {
            ex.respond({404, {}, "not found\n"});
            return;
          }
          ex.respond({200, {{"Content-Type", "text/plain"}}, kubelet_text(scrapes_++)});
        });
    kubelet_->start();
    create("node", R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"n1",
        "labels":{"kubernetes.io/hostname":"n1"}}})");
    node_status("n1", kubelet_->port());
    create("node2", R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"quiet-node"}})");
    node_status("quiet-node", 0);
    for (const char* name : {"web", "quiet", "pending"}) {
      create(name,
             std::string(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")") + name +
                 R"(","namespace":"default","labels":{"app":")" + name +
                 R"("}},"spec":{"nodeName":"n1","containers":[{"name":"app","image":"busybox"},
                       {"name":"side","image":"busybox"}]}})");
      if (std::string(name) != "pending") running(name);
    }
  }

  void TearDown() override {
    kubelet_->stop();
    ApiOnlyKubectlTest::TearDown();
  }

  void node_status(const std::string& name, std::uint16_t port) {
    std::string patch = R"({"status":{"capacity":{"cpu":"4","memory":"8Gi"},
        "allocatable":{"cpu":"4","memory":"8Gi"},
        "addresses":[{"type":"InternalIP","address":"127.0.0.1"}])";
    if (port) {
      patch += R"(,"daemonEndpoints":{"kubeletEndpoint":{"Port":)" + std::to_string(port) + "}}";
    }
    const KubectlResult r =
        kubectl("patch node " + name + " --subresource=status --type=merge -p '" + patch + "}}'");
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }

  void running(const std::string& pod) {
    const KubectlResult r =
        kubectl("patch pod " + pod +
                R"( --subresource=status --type=merge -p '{"status":{"phase":"Running"}}')");
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }

  // After at least two scrapes of n1 (usage needs two points).
  void wait_for_metrics() {
    for (int i = 0; i < 100 && scrapes_ < 3; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    ASSERT_GE(scrapes_.load(), 3) << "tailor-cluster did not scrape the kubelet endpoint";
  }

  bj::object raw(const std::string& path) {
    const KubectlResult r = kubectl("get --raw " + path);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.exit_code == 0 ? bj::parse(r.out).as_object() : bj::object{};
  }

  std::atomic<int> scrapes_{0};
  std::unique_ptr<kube::http::Server> kubelet_;
};

TEST_F(MetricsApi, DiscoveryNamesTheGroupAndItsTwoResources) {
  const KubectlResult r = kubectl("api-resources --api-group=metrics.k8s.io -o wide");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::regex_search(
      r.out, std::regex(R"(nodes\s+metrics.k8s.io/v1beta1\s+false\s+NodeMetrics\s+get,list)")))
      << r.out;
  EXPECT_TRUE(std::regex_search(
      r.out, std::regex(R"(pods\s+metrics.k8s.io/v1beta1\s+true\s+PodMetrics\s+get,list)")))
      << r.out;
}

TEST_F(MetricsApi, KubectlTopPodAndNodePrintTheUsageBetweenTwoScrapes) {
  wait_for_metrics();
  const KubectlResult pods = kubectl("top pod -n default");
  ASSERT_EQ(pods.exit_code, 0) << pods.err;
  // 500m + 20m; 50Mi + 4Ki. quiet has no metrics (its node's kubelet does not report it), pending
  // is not Running: neither is listed.
  EXPECT_TRUE(std::regex_search(pods.out, std::regex(R"(\nweb\s+520m\s+50Mi\s*\n)"))) << pods.out;
  EXPECT_EQ(pods.out.find("quiet"), std::string::npos) << pods.out;
  EXPECT_EQ(pods.out.find("pending"), std::string::npos) << pods.out;

  const KubectlResult containers = kubectl("top pod web --containers");
  ASSERT_EQ(containers.exit_code, 0) << containers.err;
  EXPECT_TRUE(std::regex_search(containers.out, std::regex(R"(web\s+app\s+500m\s+50Mi)")))
      << containers.out;
  EXPECT_TRUE(std::regex_search(containers.out, std::regex(R"(web\s+side\s+20m\s+0Mi)")))
      << containers.out;

  const KubectlResult nodes = kubectl("top node");
  ASSERT_EQ(nodes.exit_code, 0) << nodes.err;
  // 1250m of 4 CPUs is 31 %; 1Gi of 8Gi is 12 %. quiet-node names no kubelet endpoint.
  EXPECT_TRUE(std::regex_search(nodes.out, std::regex(R"(\nn1\s+1250m\s+31%\s+1024Mi\s+12%)")))
      << nodes.out;
  EXPECT_TRUE(std::regex_search(nodes.out, std::regex(R"(quiet-node\s+<unknown>)"))) << nodes.out;
}

TEST_F(MetricsApi, ObjectsHaveMetricsServersShape) {
  wait_for_metrics();
  const bj::object pod = raw("/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/web");
  EXPECT_EQ(pod.at("kind"), "PodMetrics");
  EXPECT_EQ(pod.at("apiVersion"), "metrics.k8s.io/v1beta1");
  EXPECT_EQ(pod.at("metadata").at("name"), "web");
  EXPECT_EQ(pod.at("metadata").at("namespace"), "default");
  EXPECT_EQ(pod.at("metadata").at("labels").at("app"), "web");
  EXPECT_EQ(pod.at("window"), "1s");
  EXPECT_TRUE(std::regex_match(std::string(pod.at("timestamp").as_string()),
                               std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)")));
  const bj::array& containers = pod.at("containers").as_array();
  ASSERT_EQ(containers.size(), 2u);
  EXPECT_EQ(containers[0].at("name"), "app");
  EXPECT_EQ(containers[0].at("usage").at("cpu"), "500m");
  EXPECT_EQ(containers[0].at("usage").at("memory"), "50Mi");
  EXPECT_EQ(containers[1].at("usage").at("cpu"), "20m");
  EXPECT_EQ(containers[1].at("usage").at("memory"), "4Ki");

  const bj::object node = raw("/apis/metrics.k8s.io/v1beta1/nodes/n1");
  EXPECT_EQ(node.at("kind"), "NodeMetrics");
  EXPECT_EQ(node.at("usage").at("cpu"), "1250m");
  EXPECT_EQ(node.at("usage").at("memory"), "1Gi");
  EXPECT_EQ(node.at("metadata").at("labels").at("kubernetes.io/hostname"), "n1");

  const bj::object all = raw("/apis/metrics.k8s.io/v1beta1/pods");
  EXPECT_EQ(all.at("kind"), "PodMetricsList");
  ASSERT_EQ(all.at("items").as_array().size(), 1u);
  const bj::object selected =
      raw("/apis/metrics.k8s.io/v1beta1/namespaces/default/pods?labelSelector=app%3Dquiet");
  EXPECT_TRUE(selected.at("items").as_array().empty());
  const bj::object nodes = raw("/apis/metrics.k8s.io/v1beta1/nodes");
  EXPECT_EQ(nodes.at("kind"), "NodeMetricsList");
  EXPECT_EQ(nodes.at("items").as_array().size(), 1u);
}

// metrics-server's Table: the usage summed over the containers, and the window.
TEST_F(MetricsApi, KubectlGetPrintsMetricsServersColumns) {
  wait_for_metrics();
  const KubectlResult pods = kubectl("get podmetrics -n default");
  ASSERT_EQ(pods.exit_code, 0) << pods.err;
  EXPECT_TRUE(std::regex_search(pods.out, std::regex(R"(NAME\s+CPU\s+MEMORY\s+WINDOW\s*\n)")))
      << pods.out;
  EXPECT_TRUE(std::regex_search(pods.out, std::regex(R"(\nweb\s+520m\s+51204Ki\s+1s\s*\n)")))
      << pods.out;
  const KubectlResult node = kubectl("get nodemetrics n1");
  ASSERT_EQ(node.exit_code, 0) << node.err;
  EXPECT_TRUE(std::regex_search(node.out, std::regex(R"(\nn1\s+1250m\s+1Gi\s+1s\s*\n)")))
      << node.out;
  const KubectlResult named = kubectl("get podmetrics web -o name");
  EXPECT_EQ(named.out, "podmetrics.metrics.k8s.io/web\n") << named.err;
}

TEST_F(MetricsApi, NotFoundAsMetricsServerSaysIt) {
  wait_for_metrics();
  const KubectlResult unknown =
      kubectl("get --raw /apis/metrics.k8s.io/v1beta1/namespaces/default/pods/nope");
  EXPECT_NE(unknown.exit_code, 0);
  EXPECT_NE(unknown.err.find(R"(pods "nope" not found)"), std::string::npos) << unknown.err;

  const KubectlResult quiet = kubectl("top pod quiet");
  EXPECT_NE(quiet.exit_code, 0);
  EXPECT_NE(quiet.err.find(R"(podmetrics.metrics.k8s.io "default/quiet" not found)"),
            std::string::npos)
      << quiet.err;

  const KubectlResult node = kubectl("get --raw /apis/metrics.k8s.io/v1beta1/nodes/quiet-node");
  EXPECT_NE(node.exit_code, 0);
  EXPECT_NE(node.err.find(R"(nodemetrics.metrics.k8s.io "quiet-node" not found)"),
            std::string::npos)
      << node.err;

  const KubectlResult write =
      kubectl("create --raw /apis/metrics.k8s.io/v1beta1/namespaces/default/pods -f " +
              this->write("empty.json", "{}"));
  EXPECT_NE(write.exit_code, 0);
  EXPECT_NE(write.err.find("MethodNotAllowed"), std::string::npos) << write.err;
}

// With the control loops: ClusterRole aggregation gives view what metrics-server's manifest
// adds (system:aggregated-metrics-reader).
class MetricsApiRbac : public MetricsApi {
 protected:
  ClusterOptions cluster_options() override {
    ClusterOptions o = MetricsApi::cluster_options();
    o.control_loops = true;
    return o;
  }
};

TEST_F(MetricsApiRbac, ViewersOfANamespaceMayTopItsPodsButNotTheNodes) {
  wait_for_metrics();
  ASSERT_EQ(
      kubectl("create rolebinding jane-view --clusterrole=view --user=jane -n default").exit_code,
      0);
  KubectlResult can;
  for (int i = 0; i < 100; ++i) {
    can = kubectl("auth can-i list pods.metrics.k8s.io -n default --as=jane");
    if (can.out == "yes\n") break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_EQ(can.out, "yes\n") << "view never aggregated the metrics reader: " << can.err;
  const KubectlResult pods = kubectl("top pod -n default --as=jane");
  EXPECT_EQ(pods.exit_code, 0) << pods.err;
  EXPECT_NE(pods.out.find("web"), std::string::npos) << pods.out;
  const KubectlResult nodes = kubectl("top node --as=jane");
  EXPECT_NE(nodes.exit_code, 0);
  EXPECT_NE(
      nodes.err.find(R"(User "jane" cannot list resource "nodes" in API group "metrics.k8s.io")"),
      std::string::npos)
      << nodes.err;
}

}  // namespace
}  // namespace tailor::embedded::testing
