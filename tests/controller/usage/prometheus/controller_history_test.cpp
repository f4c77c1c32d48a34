// tailor-controller started with --storage=prometheus against a live tailor-cluster and the real
// Prometheus serving a backfilled cAdvisor history, with no node agent at all: the policy's
// recommendation can only come from the history, through the same on_usage path as the stream.
#include <gtest/gtest.h>

#include <chrono>
#include <sstream>
#include <thread>

#include "kube/model/quantity.h"
#include "tests/charts/child_process.h"
#include "tests/controller/integration/policy_cluster.h"
#include "tests/controller/usage/prometheus/prometheus_peer.h"

namespace tailor::controller::usage {
namespace {

using namespace std::chrono_literals;
using embedded::ClusterOptions;

constexpr std::int64_t kHour = 3600;
constexpr int kHours = 6;

// Seven hours of two containers at 0.5 core and 180 MiB: default/web-1 (under the policy) and
// default/gone-1 (a pod that no longer exists: its windows match no policy).
std::string history(std::int64_t first_s) {
  std::ostringstream out;
  out.precision(17);
  const char* pods[] = {"web-1", "gone-1"};
  out << "# TYPE container_cpu_usage_seconds counter\n";
  for (const char* pod : pods) {
    for (int i = 0; i <= kHours * 60 + 59; ++i) {
      out << "container_cpu_usage_seconds_total{job=\"kubernetes-cadvisor\",namespace=\"default\","
          << "pod=\"" << pod << "\",container=\"app\"} " << 100 + 30.0 * i << " "
          << first_s + i * 60 + 30 << "\n";
    }
  }
  out << "# TYPE container_memory_working_set_bytes gauge\n";
  for (const char* pod : pods) {
    for (int i = 0; i <= kHours * 60 + 59; ++i) {
      out << "container_memory_working_set_bytes{job=\"kubernetes-cadvisor\",namespace=\"default\","
          << "pod=\"" << pod << "\",container=\"app\"} " << 180 * 1024 * 1024 << " "
          << first_s + i * 60 + 30 << "\n";
    }
  }
  out << "# EOF\n";
  return out.str();
}

constexpr const char* kPod = R"({"apiVersion":"v1","kind":"Pod",
 "metadata":{"name":"web-1","labels":{"app":"web"}},
 "spec":{"nodeName":"node-1","containers":[{"name":"app","image":"busybox",
   "resources":{"requests":{"cpu":"100m","memory":"100Mi"}}}]}})";

class ControllerHistoryTest
    : public controller::testing::PolicyClusterTest<embedded::testing::KubectlClusterTest> {
 protected:
  ClusterOptions cluster_options() override {
    return controller::testing::test_played_nodes(nodes_file_, controller::testing::kOneNode);
  }
  void TearDown() override {
    controller_.reset();
    PolicyClusterTest::TearDown();
    std::filesystem::remove(nodes_file_);
  }

  std::string nodes_file_ = "/tmp/tailor-usage-nodes-" + std::to_string(::getpid()) + ".yaml";
  std::unique_ptr<charts::ChildProcess> controller_;
};

TEST_F(ControllerHistoryTest, ARecommendationFromTheHistoryAlone) {
  // The controller lines its windows up on the hour before its own start: not across an hour
  // from the history written here (two minutes' margin for Prometheus and the controller).
  auto unix_now = [] {
    return std::chrono::duration_cast<std::chrono::seconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  };
  while (kHour - unix_now() % kHour < 120) std::this_thread::sleep_for(1s);
  const std::int64_t now_s = unix_now();
  const std::int64_t first = now_s / kHour * kHour - (kHours + 1) * kHour;
  testing::PrometheusPeer prometheus(history(first));

  ASSERT_NO_FATAL_FAILURE(install_crd());
  ASSERT_NO_FATAL_FAILURE(apply_policy("Off"));
  create("pod", kPod);

  controller_ = std::make_unique<charts::ChildProcess>(
      std::vector<std::string>{
          charts::tailor_binary("tailor-controller"), "--kubeconfig=" + kubeconfig_,
          "--webhook-port=0", "--leader-elect=false", "--watch-vpa=false", "--strategy=vpa",
          "--pass-interval=1s", "--usage-bind-address=127.0.0.1:0", "--usage-insecure",
          "--metrics-bind-address=127.0.0.1:" + std::to_string(kube::testing::free_loopback_port()),
          "--storage=prometheus", "--prometheus-address=" + prometheus.url(), "--history-length=6h",
          "--history-resolution=1h"},
      dir_ / "controller.log");

  std::string provided;
  for (auto deadline = std::chrono::steady_clock::now() + 60s;
       provided != "True" && std::chrono::steady_clock::now() < deadline;
       std::this_thread::sleep_for(250ms)) {
    ASSERT_TRUE(controller_->running()) << controller_->log();
    provided = kubectl(
                   "get vsp web -o "
                   "'jsonpath={.status.conditions[?(@.type==\"RecommendationProvided\")].status}'")
                   .out;
  }
  ASSERT_EQ(provided, "True") << controller_->log();
  const std::string log = controller_->log();
  EXPECT_NE(log.find("\"Read the usage history from Prometheus\""), std::string::npos) << log;
  // web-1's six hours fold into the policy's model; gone-1's match no policy.
  EXPECT_NE(log.find("\"Usage history folded into the models\" windows=6 unmatched=6"),
            std::string::npos)
      << log;
  // VPA's target: the 90th percentile of half a core plus its 15% margin.
  const std::string cpu =
      kubectl(
          "get vsp web -o "
          "'jsonpath={.status.recommendation.containerRecommendations[0].target.cpu}'")
          .out;
  ASSERT_FALSE(cpu.empty());
  const double cores = kube::Quantity::parse(cpu).as_double();
  EXPECT_GT(cores, 0.5) << cpu;
  EXPECT_LT(cores, 0.65) << cpu;
}

// tailor-cluster serves metrics.k8s.io as metrics-server does (here with no kubelet endpoint to
// scrape, so empty lists): the controller's poller lists it without a warning or a failure, keeps
// passing, and shuts down cleanly. The 404 of a cluster without metrics-server is
// MetricsApiPollerTest.AnApiThatIsNotServedIsPolledAgain.
TEST_F(ControllerHistoryTest, MetricsApiServedByTailorCluster) {
  ASSERT_NO_FATAL_FAILURE(install_crd());
  controller_ = std::make_unique<charts::ChildProcess>(
      std::vector<std::string>{
          charts::tailor_binary("tailor-controller"), "--kubeconfig=" + kubeconfig_,
          "--webhook-port=0", "--leader-elect=false", "--watch-vpa=false", "--pass-interval=1s",
          "--usage-bind-address=127.0.0.1:0", "--usage-insecure",
          "--metrics-bind-address=127.0.0.1:" + std::to_string(kube::testing::free_loopback_port()),
          "--metrics-source=metrics-api", "--metrics-api-interval=100ms", "--v=2"},
      dir_ / "controller.log");
  const std::string polled = "\"PodMetrics polled\"";
  for (auto deadline = std::chrono::steady_clock::now() + 30s;
       controller_->log().find(polled) == std::string::npos &&
       std::chrono::steady_clock::now() < deadline;
       std::this_thread::sleep_for(100ms)) {
    ASSERT_TRUE(controller_->running()) << controller_->log();
  }
  std::this_thread::sleep_for(1s);  // several polls, each an empty PodMetricsList
  ASSERT_TRUE(controller_->running()) << controller_->log();
  const int status = controller_->terminate();
  const std::string log = controller_->log();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << log;
  EXPECT_NE(log.find(polled), std::string::npos) << log;
  EXPECT_EQ(log.find("The metrics.k8s.io API is not served"), std::string::npos) << log;
  EXPECT_EQ(log.find("Listing PodMetrics failed"), std::string::npos) << log;
}

}  // namespace
}  // namespace tailor::controller::usage
