// The Workloads dashboard (charts/tailor/dashboards/workloads.json) on `tailor cluster up`: two
// Deployments under VerticalScalingPolicies ("web" with two containers, "api" with one) and one
// under none ("plain"). The real Prometheus scrapes the environment's tailor-controller; every
// query of the dashboard (panels and annotations), with the namespace, workload and container
// variables set as a user picks them, must return series for each container of web and api and
// none for plain, whose pods report usage too but are under no policy.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <chrono>
#include <map>
#include <set>
#include <thread>

#include "tests/charts/dashboards.h"
#include "tests/charts/prometheus_api.h"
#include "tests/charts/promql.h"
#include "tests/e2e/e2e_cluster.h"
#include "tests/e2e/workload_manifests.h"

namespace tailor::e2e {
namespace {

namespace bj = boost::json;
using std::chrono::seconds;

std::string deployment(const std::string& name, const std::vector<std::string>& containers) {
  WorkloadSpec spec{.name = name, .node = "", .containers = {}};
  for (const std::string& c : containers) {
    spec.containers.push_back({.name = c,
                               .requests = {{"cpu", "100m"}, {"memory", "32Mi"}},
                               .limits = {{"cpu", "200m"}, {"memory", "64Mi"}}});
  }
  return deployment_manifest(spec);
}

// Off: recommendations only, so that the pods stay as created while the series are checked.
std::string policy(const std::string& name) {
  return policy_manifest({.name = name, .deployment = name});
}

std::uint16_t controller_metrics_port(const E2eCluster& cluster) {
  std::ifstream in(cluster.dir() / "controller.ports");
  const std::string text((std::istreambuf_iterator<char>(in)), {});
  return static_cast<std::uint16_t>(bj::parse(text).at("metrics").to_number<std::int64_t>());
}

bool has_series(std::uint16_t prometheus, const std::string& promql, std::string& seen) {
  const bj::value answer = charts::query_range(prometheus, promql);
  seen = bj::serialize(answer).substr(0, 300);
  return answer.at("status").as_string() == "success" &&
         !answer.at("data").at("result").as_array().empty();
}

TEST(WorkloadDashboard, EveryQueryHasDataForWorkloadsUnderAPolicyAndNoneForOthers) {
  E2eCluster& cluster = E2eCluster::get();
  TestNamespace ns("workload-dashboard");
  ASSERT_TRUE(ns.apply(deployment("web", {"app", "sidecar"})));
  ASSERT_TRUE(ns.apply(deployment("api", {"app"})));
  ASSERT_TRUE(ns.apply(deployment("plain", {"app"})));
  ASSERT_TRUE(ns.apply(policy("web")));
  ASSERT_TRUE(ns.apply(policy("api")));
  for (const char* name : {"web", "api"}) {
    ASSERT_TRUE(wait_until(std::string(name) + "'s recommendation", seconds(120),
                           [&](std::string& seen) {
                             auto p = ns.policy(name);
                             seen = p ? p->summary() : "no policy";
                             return p && !p->recommendations.empty();
                           }))
        << cluster.controller_log_tail();
  }

  const std::filesystem::path dir = cluster.dir() / "scratch" / "workload-dashboard-prometheus";
  std::filesystem::create_directories(dir);
  const std::uint16_t port = kube::testing::free_loopback_port();
  auto prometheus = charts::start_prometheus(
      dir, port, {{"tailor-controller", controller_metrics_port(cluster)}});
  // Four scrapes of the usage series of both workloads (rate() and increase() want two samples).
  const std::string scraped =
      "count_over_time(tailor_workload_usage_mean{namespace=\"" + ns.name() +
      "\",target_name=\"api\",resource=\"cpu\"}[1m]) >= 4 and on () "
      "count_over_time(tailor_workload_usage_mean{namespace=\"" +
      ns.name() + "\",target_name=\"web\",container=\"sidecar\"," + "resource=\"cpu\"}[1m]) >= 4";
  ASSERT_TRUE(wait_until("Prometheus' scrapes of both workloads' usage", seconds(60),
                         [&](std::string& seen) {
                           if (!prometheus->running()) throw std::runtime_error(prometheus->log());
                           return has_series(port, scraped, seen);
                         }))
      << cluster.controller_log_tail();

  const auto queries = charts::panel_queries("workloads.json");
  ASSERT_GE(queries.size(), 20u);
  const std::vector<std::pair<std::string, std::string>> under_policy = {
      {"web", "app"}, {"web", "sidecar"}, {"api", "app"}};
  for (const charts::PanelQuery& q : queries) {
    for (const auto& [workload, container] : under_policy) {
      const std::string promql = charts::substitute_grafana_variables(
          q.expr, {{"$namespace", ns.name()}, {"$workload", workload}, {"$container", container}});
      std::string seen;
      EXPECT_TRUE(has_series(port, promql, seen))
          << q.panel << " for " << workload << "/" << container << ": " << promql << "\n"
          << seen;
    }
    const std::string plain = charts::substitute_grafana_variables(
        q.expr, {{"$namespace", ns.name()}, {"$workload", "plain"}, {"$container", ".*"}});
    std::string seen;
    EXPECT_FALSE(has_series(port, plain, seen)) << q.panel << " has data for plain: " << seen;
  }
  // The variables as Grafana fills them (label_values, each with the ones before it set): the
  // workload variable lists exactly the workloads under a policy, the container variable each
  // one's containers; plain is in none.
  std::map<std::string, std::string> variables;  // name -> "count by (LABEL) (METRIC{...})"
  for (const charts::PanelQuery& q : charts::variable_queries()) {
    if (q.dashboard == "workloads.json") variables[q.panel] = q.expr;
  }
  ASSERT_EQ(variables.size(), 4u);
  auto values = [&](const std::string& variable, const std::map<std::string, std::string>& set) {
    return charts::label_values(port,
                                charts::substitute_grafana_variables(variables.at(variable), set));
  };
  EXPECT_EQ(values("job", {}), (std::set<std::string>{"tailor-controller"}));
  const std::map<std::string, std::string> job = {{"$job", "tailor-controller"}};
  EXPECT_TRUE(values("namespace", job).contains(ns.name()));
  std::map<std::string, std::string> in_ns = job;
  in_ns["$namespace"] = ns.name();
  EXPECT_EQ(values("workload", in_ns), (std::set<std::string>{"api", "web"}));
  for (const auto& [workload, containers] : std::map<std::string, std::set<std::string>>{
           {"web", {"app", "sidecar"}}, {"api", {"app"}}, {"plain", {}}}) {
    std::map<std::string, std::string> picked = in_ns;
    picked["$workload"] = workload;
    EXPECT_EQ(values("container", picked), containers) << workload;
  }

  // The controller dashboard's savings of every workload under a policy (the cost panels above
  // without their filters): series, from web's and api's.
  std::size_t fleet = 0;
  for (const charts::PanelQuery& q : charts::panel_queries("controller.json")) {
    if (q.expr.find("tailor_workload_") == std::string::npos) continue;
    ++fleet;
    std::string seen;
    const std::string promql = charts::substitute_grafana_variables(q.expr, job);
    EXPECT_TRUE(has_series(port, promql, seen)) << q.panel << ": " << promql << "\n" << seen;
  }
  EXPECT_EQ(fleet, 3u);
}

}  // namespace
}  // namespace tailor::e2e
