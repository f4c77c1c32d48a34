// Every PromQL expression of the dashboards, evaluated by the real Prometheus (Debian's
// `prometheus` package, scripts/install-deps.sh) scraping a real tailor-controller process that
// runs against an in-process tailor-cluster (with --metrics-source=metrics-api, so that the
// metrics.k8s.io poller's counter is served), and the node agent's metrics (NodeAgentMetrics on a
// registry served by observe::Endpoint, since the agent binary needs a container runtime): no
// query may fail, each must return series, and every metric name a panel uses must be one
// Prometheus has scraped. The Workloads dashboard needs workloads under policies with usage: it
// is evaluated the same way on `tailor cluster up` (tests/e2e/workload_dashboard_test.cpp).
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <chrono>
#include <memory>
#include <set>
#include <thread>

#include "embedded/server/cluster.h"
#include "kube/http/url.h"
#include "kube/observe/endpoint.h"
#include "node-agent/allocation/node_agent_metrics.h"
#include "tests/charts/child_process.h"
#include "tests/charts/dashboards.h"
#include "tests/charts/prometheus_api.h"
#include "tests/charts/promql.h"
#include "tests/kube/observe/http_get.h"

namespace tailor::charts {
namespace {

namespace fs = std::filesystem;
namespace bj = boost::json;
using namespace std::chrono_literals;

// Every series of the node agent's metrics that the dashboard filters on, recorded through
// NodeAgentMetrics as the agent records them.
void record_node_agent_activity(node::allocation::NodeAgentMetrics& m) {
  using node::allocation::ResizeState;
  for (auto s : {ResizeState::Proposed, ResizeState::Completed, ResizeState::Deferred,
                 ResizeState::Infeasible, ResizeState::Canceled}) {
    m.resize(s);
  }
  m.requested_resize("cpu", "requests", "increase");
  m.requested_resize("memory", "limits", "decrease");
  m.resize_duration(std::chrono::milliseconds(40), true);
  m.resize_duration(std::chrono::milliseconds(900), false);
  m.set_pending("deferred", 1);
  m.set_in_progress(1);
  m.infeasible("insufficient_node_allocatable");
  m.deferred_accepted(node::allocation::RetryTrigger::PodResizedDown);
  m.checkpoint_error("io");
  m.cri_operation("container_update", std::chrono::milliseconds(3), false);
  m.cri_operation("container_status", std::chrono::milliseconds(1), true);
}

// The peers, started once for the suite.
struct Stack {
  fs::path dir;
  std::unique_ptr<embedded::Cluster> cluster;
  kube::metrics::Registry agent_registry;
  kube::health::Checks agent_checks;
  std::unique_ptr<node::allocation::NodeAgentMetrics> agent_metrics;
  std::unique_ptr<kube::observe::Endpoint> agent_endpoint;
  std::uint16_t controller_metrics_port = 0;
  std::unique_ptr<ChildProcess> controller;
  std::uint16_t prometheus_port = 0;
  std::unique_ptr<ChildProcess> prometheus;

  ~Stack() {
    prometheus.reset();
    controller.reset();
    agent_endpoint.reset();
    cluster.reset();
    std::error_code ec;
    fs::remove_all(dir, ec);
  }

  std::string logs() const {
    return "--- tailor-controller:\n" + (controller ? controller->log() : "") +
           "\n--- prometheus:\n" + (prometheus ? prometheus->log() : "");
  }
};

// The queries of Tailor's own processes: not workloads.json, nor the controller dashboard's
// savings of all workloads, which read the same per-workload series (no workload here is under a
// policy: tests/e2e/workload_dashboard_test.cpp evaluates both).
std::vector<PanelQuery> process_dashboards(std::vector<PanelQuery> queries) {
  std::erase_if(queries, [](const PanelQuery& q) {
    return q.dashboard == "workloads.json" || q.expr.find("tailor_workload_") != std::string::npos;
  });
  return queries;
}

class DashboardPrometheusTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    try {
      stack_ = start_stack();
    } catch (const std::exception& e) {
      setup_error_ = e.what();
    }
  }
  static void TearDownTestSuite() { stack_.reset(); }

  void SetUp() override { ASSERT_TRUE(stack_) << "the stack did not start: " << setup_error_; }

  static std::unique_ptr<Stack> start_stack() {
    const std::string kubectl = find_on_path("kubectl");
    if (kubectl.empty()) throw std::runtime_error("kubectl is not installed");
    const std::string controller = tailor_binary("tailor-controller");
    if (::access(controller.c_str(), X_OK) != 0) {
      throw std::runtime_error(controller + " is not built");
    }
    auto s = std::make_unique<Stack>();
    char tmpl[] = "/tmp/tailor-chart-test-XXXXXX";
    if (!::mkdtemp(tmpl)) throw std::runtime_error("mkdtemp failed");
    s->dir = tmpl;

    embedded::ClusterOptions cluster_options;
    cluster_options.control_loops = false;
    s->cluster = std::make_unique<embedded::Cluster>(cluster_options);
    s->cluster->start();
    const std::string kubeconfig = (s->dir / "kubeconfig").string();
    s->cluster->write_kubeconfig(kubeconfig);
    // The chart's CRDs, as Helm installs them from crds/.
    const std::string kubectl_env =
        "env HOME=" + s->dir.string() + " " + kubectl + " --kubeconfig " + kubeconfig + " ";
    auto applied = run_command(kubectl_env + "apply -f " + (chart_dir() / "crds").string());
    if (applied.exit_code != 0) throw std::runtime_error("kubectl apply: " + applied.output);
    auto established = run_command(kubectl_env +
                                   "wait --for=condition=Established --timeout=10s "
                                   "crd/verticalscalingpolicies.autoscaling.tailor.dev");
    if (established.exit_code != 0) throw std::runtime_error("kubectl wait: " + established.output);

    s->agent_metrics = std::make_unique<node::allocation::NodeAgentMetrics>(s->agent_registry);
    record_node_agent_activity(*s->agent_metrics);
    s->agent_endpoint = std::make_unique<kube::observe::Endpoint>("127.0.0.1", 0, s->agent_registry,
                                                                  s->agent_checks);
    s->agent_endpoint->start();

    s->controller_metrics_port = kube::testing::free_loopback_port();
    s->controller = std::make_unique<ChildProcess>(
        std::vector<std::string>{
            controller, "--kubeconfig=" + kubeconfig, "--webhook-port=0", "--leader-elect=false",
            "--watch-vpa=false", "--pass-interval=1s", "--usage-bind-address=127.0.0.1:0",
            "--usage-insecure",
            // The poller's tailor_controller_metrics_api_readings_total exists (at zero) from
            // start-up, though no pod here has metrics: no Node names a kubelet endpoint.
            "--metrics-source=metrics-api",
            "--metrics-bind-address=127.0.0.1:" + std::to_string(s->controller_metrics_port)},
        s->dir / "controller.log");

    s->prometheus_port = kube::testing::free_loopback_port();
    s->prometheus = start_prometheus(s->dir, s->prometheus_port,
                                     {{"tailor-controller", s->controller_metrics_port},
                                      {"tailor-node-agent", s->agent_endpoint->port()}});
    wait_until_scraped(*s);
    return s;
  }

  // Until Prometheus has four scrapes of both targets after the controller's first pass (rate()
  // needs two samples before the end of a range query, which may lag the last scrape).
  static void wait_until_scraped(Stack& s) {
    const std::string query =
        "count_over_time(tailor_controller_policies{condition=\"RecommendationProvided\"}[1m]) "
        ">= 4 and on() count_over_time(tailor_node_resize_requests_total{state=\"completed\"}"
        "[1m]) >= 4";
    for (auto deadline = std::chrono::steady_clock::now() + 45s;
         std::chrono::steady_clock::now() < deadline; std::this_thread::sleep_for(250ms)) {
      if (!s.controller->running())
        throw std::runtime_error("tailor-controller exited\n" + s.logs());
      if (!s.prometheus->running()) throw std::runtime_error("prometheus exited\n" + s.logs());
      try {
        auto answer = prometheus_api(s.prometheus_port,
                                     "/api/v1/query?query=" + kube::http::percent_encode(query));
        if (!answer.at("data").at("result").as_array().empty()) return;
      } catch (const std::exception&) {
        // Prometheus is not listening yet.
      }
    }
    throw std::runtime_error("Prometheus did not scrape both targets in time\n" + s.logs());
  }

  static std::set<std::string> known_metric_names() {
    auto answer = prometheus_api(stack_->prometheus_port, "/api/v1/label/__name__/values");
    std::set<std::string> out;
    for (const auto& name : answer.at("data").as_array()) {
      out.insert(std::string(name.as_string()));
    }
    return out;
  }

  static bj::value query_range(const std::string& promql) {
    return charts::query_range(stack_->prometheus_port, promql);
  }

  static inline std::unique_ptr<Stack> stack_;
  static inline std::string setup_error_;
};

TEST_F(DashboardPrometheusTest, ControllerServesTheChartsProbePaths) {
  for (const char* path : {"/livez", "/readyz", "/metrics"}) {
    auto answer = kube::testing::http_get(stack_->controller_metrics_port, path);
    EXPECT_EQ(answer.status, 200) << path << ": " << answer.body;
  }
}

TEST_F(DashboardPrometheusTest, EveryPanelQueryEvaluatesWithSeries) {
  const auto queries = process_dashboards(panel_queries());
  ASSERT_FALSE(queries.empty());
  for (const PanelQuery& q : queries) {
    SCOPED_TRACE(q.dashboard + " / " + q.panel + ": " + q.expr);
    const std::string promql = substitute_grafana_variables(q.expr);
    const bj::value answer = query_range(promql);
    ASSERT_EQ(answer.at("status").as_string(), "success") << bj::serialize(answer);
    EXPECT_FALSE(answer.at("data").at("result").as_array().empty())
        << "no series: a label value or metric the panel filters on does not exist";
  }
}

TEST_F(DashboardPrometheusTest, EveryMetricAPanelUsesIsKnownToPrometheus) {
  const auto known = known_metric_names();
  std::set<std::string> used;
  for (const PanelQuery& q : process_dashboards(panel_queries())) {
    for (const std::string& name : metric_names(q.expr)) {
      used.insert(name);
      EXPECT_TRUE(known.count(name)) << q.dashboard << " / " << q.panel << ": " << name
                                     << " is not a metric Prometheus scraped";
    }
  }
  EXPECT_GE(used.size(), 20u);
}

TEST_F(DashboardPrometheusTest, TemplateVariablesFindTheirJobs) {
  for (const PanelQuery& q : process_dashboards(variable_queries())) {
    SCOPED_TRACE(q.dashboard + " variable " + q.panel + ": " + q.expr);
    const bj::value answer = query_range(substitute_grafana_variables(q.expr));
    ASSERT_EQ(answer.at("status").as_string(), "success") << bj::serialize(answer);
    EXPECT_FALSE(answer.at("data").at("result").as_array().empty());
  }
}

}  // namespace
}  // namespace tailor::charts
