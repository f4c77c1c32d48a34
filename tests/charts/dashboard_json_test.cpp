// The Grafana dashboards are valid JSON with the shape Grafana's dashboard model expects
// (uid, title, schemaVersion, templating, panels with id, type, gridPos on the 24-column grid,
// datasource and targets), and they show what the issue asks for. Their PromQL is evaluated by
// the real Prometheus in dashboard_prometheus_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "tests/charts/dashboards.h"
#include "tests/charts/promql.h"

namespace tailor::charts {
namespace {

namespace bj = boost::json;

struct MetricNamesCase {
  std::string expr;
  std::set<std::string> names;
};

TEST(PromqlTest, MetricNamesSkipFunctionsLabelsAndDurations) {
  const std::vector<MetricNamesCase> cases = {
      {"up", {"up"}},
      {R"(sum by (outcome) (rate(tailor_controller_resizes_total{job=~".*"}[1m])))",
       {"tailor_controller_resizes_total"}},
      {R"re(histogram_quantile(0.99, sum by (le, operation) (rate(a_bucket{x="by (y)"}[5m])))re",
       {"a_bucket"}},
      {"sum(rate(a_sum[1m])) / sum(rate(a_count[1m])) > bool 0 offset 5m", {"a_sum", "a_count"}},
      {"a * on (instance) group_left (node) b unless c", {"a", "b", "c"}},
      {"max without (pod) (x:recorded:rate5m) and 1e3 < Inf", {"x:recorded:rate5m"}},
      {"sum(x) by (le)", {"x"}},
  };
  for (const auto& c : cases) EXPECT_EQ(metric_names(c.expr), c.names) << c.expr;
  EXPECT_THROW(metric_names("sum(x{a=\"b\")"), std::invalid_argument);
}

TEST(PromqlTest, GrafanaVariablesAreReplacedAndUnknownOnesRejected) {
  EXPECT_EQ(substitute_grafana_variables(R"(rate(x{job=~"$job"}[$__rate_interval]))"),
            R"(rate(x{job=~".*"}[1m]))");
  EXPECT_EQ(substitute_grafana_variables("increase(x[$__range])"), "increase(x[1h])");
  EXPECT_THROW(substitute_grafana_variables(R"(x{pod="$pod"})"), std::invalid_argument);
  EXPECT_THROW(substitute_grafana_variables("x[$__range_s]"), std::invalid_argument);
}

bool is_int(const bj::object& o, const char* key) {
  return o.contains(key) && o.at(key).is_int64();
}

TEST(DashboardJsonTest, DashboardsHaveGrafanasShape) {
  const auto all = dashboards();
  ASSERT_EQ(all.size(), 3u);
  std::set<std::string> uids;
  for (const Dashboard& d : all) {
    SCOPED_TRACE(d.file);
    EXPECT_TRUE(uids.insert(std::string(d.json.at("uid").as_string())).second);
    EXPECT_LE(d.json.at("uid").as_string().size(), 40u);  // Grafana's limit
    EXPECT_FALSE(d.json.at("title").as_string().empty());
    EXPECT_TRUE(is_int(d.json, "schemaVersion"));
    std::set<std::string> variables;
    for (const auto& v : d.json.at("templating").at("list").as_array()) {
      variables.insert(std::string(v.at("name").as_string()));
    }
    EXPECT_TRUE(variables.count("datasource"));
    std::set<std::int64_t> ids;
    std::vector<bj::object> boxes;
    for (const auto& value : d.json.at("panels").as_array()) {
      const bj::object& p = value.as_object();
      const std::string title(p.at("title").as_string());
      SCOPED_TRACE(title);
      ASSERT_TRUE(is_int(p, "id"));
      EXPECT_TRUE(ids.insert(p.at("id").as_int64()).second) << "duplicate panel id";
      const std::string type(p.at("type").as_string());
      EXPECT_TRUE(type == "row" || type == "timeseries" || type == "stat") << type;
      EXPECT_FALSE(title.empty());
      const bj::object& pos = p.at("gridPos").as_object();
      for (const char* k : {"h", "w", "x", "y"}) ASSERT_TRUE(is_int(pos, k)) << k;
      EXPECT_GT(pos.at("w").as_int64(), 0);
      EXPECT_GT(pos.at("h").as_int64(), 0);
      EXPECT_LE(pos.at("x").as_int64() + pos.at("w").as_int64(), 24);
      boxes.push_back(pos);
      if (type == "row") continue;
      EXPECT_EQ(p.at("datasource").at("uid").as_string(), "${datasource}");
      EXPECT_TRUE(p.at("fieldConfig").at("defaults").as_object().contains("unit"));
      const auto& targets = p.at("targets").as_array();
      ASSERT_FALSE(targets.empty());
      std::set<std::string> refs;
      for (const auto& t : targets) {
        EXPECT_TRUE(refs.insert(std::string(t.at("refId").as_string())).second);
        EXPECT_FALSE(t.at("expr").as_string().empty());
      }
    }
    // No two panels overlap on the grid.
    for (std::size_t i = 0; i < boxes.size(); ++i) {
      for (std::size_t j = i + 1; j < boxes.size(); ++j) {
        auto v = [](const bj::object& b, const char* k) { return b.at(k).as_int64(); };
        const bool apart = v(boxes[i], "x") + v(boxes[i], "w") <= v(boxes[j], "x") ||
                           v(boxes[j], "x") + v(boxes[j], "w") <= v(boxes[i], "x") ||
                           v(boxes[i], "y") + v(boxes[i], "h") <= v(boxes[j], "y") ||
                           v(boxes[j], "y") + v(boxes[j], "h") <= v(boxes[i], "y");
        EXPECT_TRUE(apart) << "panels " << i << " and " << j << " overlap";
      }
    }
  }
}

// Every query uses only variables Grafana or the dashboard defines.
TEST(DashboardJsonTest, QueriesUseOnlyKnownVariables) {
  const auto queries = panel_queries();
  EXPECT_GT(queries.size(), 20u);
  for (const auto& q : queries) {
    EXPECT_NO_THROW(substitute_grafana_variables(q.expr)) << q.dashboard << " / " << q.panel;
    EXPECT_FALSE(metric_names(q.expr).empty()) << q.expr;
  }
}

// What each dashboard must show (the issue's list), by the metric a panel queries.
TEST(DashboardJsonTest, DashboardsShowTheIssuesPanels) {
  std::map<std::string, std::string> text;  // file -> all expressions
  for (const auto& q : panel_queries()) text[q.dashboard] += q.expr + "\n";
  const std::map<std::string, std::vector<std::string>> wanted = {
      {"controller.json",
       {"by (outcome) (rate(tailor_controller_resizes_total", "tailor_controller_recreations_total",
        "histogram_quantile(0.5, sum by (le) (rate(tailor_controller_pass_duration_seconds_bucket",
        "histogram_quantile(0.99, sum by (le) (rate(tailor_controller_pass_duration_seconds_bucket",
        "by (condition) (tailor_controller_policies", "tailor_controller_models{",
        "tailor_controller_model_bytes{", "tailor_controller_usage_windows_total",
        "by (reason) (rate(tailor_controller_usage_windows_rejected_total",
        "tailor_controller_usage_connections{",
        "increase(tailor_controller_usage_connection_cap_reached_total",
        "by (outcome) (rate(tailor_controller_metrics_api_readings_total",
        "by (outcome) (rate(tailor_controller_startup_boosts_total",
        "by (result) (rate(tailor_controller_startup_boost_reverts_total",
        "tailor_controller_usage_windows_boosted_total", "sum(tailor_controller_boosted_pods{",
        "tailor_workload_resource_requests{job=~\"$job\", resource=\"cpu\"} - "
        "tailor_workload_recommendation_target{job=~\"$job\", resource=\"cpu\"}",
        "* $cpu_price", "* $memory_price"}},
      {"node-agent.json",
       {"by (state) (rate(tailor_node_resize_requests_total", "tailor_node_pod_pending_resizes",
        "tailor_node_pod_in_progress_resizes",
        "tailor_node_pod_resize_duration_milliseconds_bucket",
        "tailor_node_cri_operation_duration_seconds_bucket",
        "tailor_node_cri_operation_errors_total"}},
      {"workloads.json",
       {"tailor_workload_usage_mean{", "tailor_workload_usage_peak{",
        "tailor_workload_resource_requests{", "tailor_workload_resource_limits{",
        "tailor_workload_recommendation_target{", "tailor_workload_recommendation_lowerbound{",
        "tailor_workload_recommendation_upperbound{",
        "tailor_workload_recommendation_uncappedtarget{",
        "rate(tailor_workload_cpu_shortfall_core_seconds_total{",
        "increase(tailor_workload_oom_kills_total{", "increase(tailor_workload_resizes_total{",
        "increase(tailor_workload_recreations_total{", "* $cpu_price", "* $memory_price"}}};
  for (const auto& [file, needles] : wanted) {
    for (const auto& needle : needles) {
      EXPECT_NE(text[file].find(needle), std::string::npos) << file << " lacks " << needle;
    }
  }
}

// The Workloads dashboard: one namespace, workload and container at a time (single-valued
// variables, each narrowed by the one before), every query filtered by all three (the workload's
// recreations by the first two: they have no container); the bounds
// drawn as a band; resize, recreation and OOM kill annotations; prices as constants.
TEST(DashboardJsonTest, WorkloadsDashboardSelectsOneWorkloadContainer) {
  const auto all = dashboards();
  auto it = std::find_if(all.begin(), all.end(),
                         [](const Dashboard& d) { return d.file == "workloads.json"; });
  ASSERT_NE(it, all.end());
  std::map<std::string, const bj::object*> vars;
  for (const auto& v : it->json.at("templating").at("list").as_array()) {
    vars[std::string(v.at("name").as_string())] = &v.as_object();
  }
  for (const char* name : {"namespace", "workload", "container"}) {
    ASSERT_TRUE(vars.count(name)) << name;
    EXPECT_FALSE(vars[name]->at("multi").as_bool()) << name;
  }
  EXPECT_NE(vars["workload"]->at("query").at("query").as_string().find("$namespace"),
            std::string::npos);
  EXPECT_NE(vars["container"]->at("query").at("query").as_string().find("$workload"),
            std::string::npos);
  for (const char* name : {"cpu_price", "memory_price"}) {
    ASSERT_TRUE(vars.count(name)) << name;
    EXPECT_EQ(vars[name]->at("type").as_string(), "constant");
  }
  std::set<std::string> annotations;
  for (const auto& q : panel_queries("workloads.json")) {
    SCOPED_TRACE(q.panel + ": " + q.expr);
    for (const char* filter : {"namespace=~\"$namespace\"", "target_name=~\"$workload\""}) {
      EXPECT_NE(q.expr.find(filter), std::string::npos) << filter;
    }
    // Recreations replace whole pods: that series is the workload's, without a container.
    const bool per_workload = q.expr.find("tailor_workload_recreations_total") != std::string::npos;
    EXPECT_EQ(q.expr.find("container=~\"$container\"") != std::string::npos, !per_workload);
    if (q.panel.rfind("annotation ", 0) == 0) annotations.insert(q.panel);
  }
  EXPECT_EQ(annotations, (std::set<std::string>{"annotation Resize", "annotation Recreation",
                                                "annotation OOM kill"}));
  bool band = false;
  for (const auto& p : it->json.at("panels").as_array()) {
    const auto* fc = p.as_object().if_contains("fieldConfig");
    if (!fc) continue;
    for (const auto& o : fc->at("overrides").as_array()) {
      for (const auto& prop : o.at("properties").as_array()) {
        band = band || (prop.at("id").as_string() == "custom.fillBelowTo" &&
                        prop.at("value").as_string() == "lower bound");
      }
    }
  }
  EXPECT_TRUE(band) << "no panel fills the upper bound down to the lower bound";
}

// The controller dashboard's savings of every workload under a policy: the Workloads
// dashboard's cost panels, query for query, without the namespace, workload and container
// filters, priced by the same constants.
TEST(DashboardJsonTest, FleetSavingsAreTheWorkloadsCostOverEveryWorkload) {
  std::set<std::string> controller;
  for (const auto& q : panel_queries("controller.json")) controller.insert(q.expr);
  std::size_t cost = 0;
  for (const auto& q : panel_queries("workloads.json")) {
    if (q.expr.find("$cpu_price") == std::string::npos &&
        q.expr.find("$memory_price") == std::string::npos) {
      continue;
    }
    ++cost;
    std::string fleet = q.expr;
    for (const std::string filter : {", namespace=~\"$namespace\"", ", target_name=~\"$workload\"",
                                     ", container=~\"$container\""}) {
      for (auto at = fleet.find(filter); at != std::string::npos; at = fleet.find(filter, at)) {
        fleet.erase(at, filter.size());
      }
    }
    EXPECT_TRUE(controller.count(fleet)) << q.panel << ": controller.json lacks " << fleet;
  }
  EXPECT_EQ(cost, 3u);  // hourly cpu and memory, monthly
  std::map<std::string, std::map<std::string, std::string>> constants;  // file -> name -> value
  for (const Dashboard& d : dashboards()) {
    for (const auto& v : d.json.at("templating").at("list").as_array()) {
      if (v.at("type").as_string() != "constant") continue;
      constants[d.file][std::string(v.at("name").as_string())] =
          std::string(v.at("query").as_string());
    }
  }
  EXPECT_EQ(constants["controller.json"].size(), 2u);
  EXPECT_EQ(constants["controller.json"], constants["workloads.json"]);
}

TEST(PromqlTest, VariablesSetToValues) {
  EXPECT_EQ(
      substitute_grafana_variables(R"(x{target_name=~"$workload", c=~"$container"} * $cpu_price)",
                                   {{"$workload", "web"}}),
      R"(x{target_name=~"web", c=~".*"} * 1)");
}

}  // namespace
}  // namespace tailor::charts
