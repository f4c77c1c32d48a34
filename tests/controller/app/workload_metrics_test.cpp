// tailor_workload_* series: per workload container under a policy, labelled as kube-state-metrics'
// VPA series; counters kept while the workload stays under its policy, everything dropped with it.
#include "controller/app/workload_metrics.h"

#include <gtest/gtest.h>
#include <prometheus/metric_family.h>

#include <optional>

namespace tailor::controller {
namespace {

PassWorkloads web() {
  ContainerFacts f{.container = "app"};
  f.target = {0.25, 100e6};
  f.lower_bound = {.cpu = 0.2};
  f.upper_bound = {.cpu = 0.4};
  f.uncapped_target = {.cpu = 0.3};
  f.requests = {0.5, 128e6};
  f.limits = {.memory = 256e6};
  f.pods = 3;
  return {{"shop/web", {.ns = "shop", .kind = "Deployment", .name = "web", .containers = {f}}}};
}

// The value of `family`'s series of shop/Deployment/web container app for this resource (""
// for none); nullopt when absent.
std::optional<double> value(const WorkloadMetrics& m, const std::string& family,
                            const std::string& resource = "") {
  for (const auto& f : m.Collect()) {
    if (f.name != "tailor_workload_" + family) continue;
    for (const auto& s : f.metric) {
      std::map<std::string, std::string> labels;
      for (const auto& l : s.label) labels[l.name] = l.value;
      if (resource.empty() ? labels.count("resource") : labels["resource"] != resource) continue;
      if (labels["namespace"] != "shop" || labels["target_kind"] != "Deployment" ||
          labels["target_name"] != "web" || labels["container"] != "app") {
        continue;
      }
      EXPECT_FALSE(labels.count("pod"));
      if (!resource.empty()) {
        EXPECT_EQ(labels["unit"], resource == "cpu" ? "core" : "byte");
      }
      return f.type == prometheus::MetricType::Counter ? s.counter.value : s.gauge.value;
    }
  }
  return std::nullopt;
}

TEST(WorkloadMetricsTest, RecommendationRequestsAndPodsOfThePass) {
  WorkloadMetrics m;
  m.pass(web());
  EXPECT_EQ(m.series(), 1u);
  EXPECT_EQ(value(m, "recommendation_target", "cpu"), 0.25);
  EXPECT_EQ(value(m, "recommendation_target", "memory"), 100e6);
  EXPECT_EQ(value(m, "recommendation_lowerbound", "cpu"), 0.2);
  EXPECT_EQ(value(m, "recommendation_upperbound", "cpu"), 0.4);
  EXPECT_EQ(value(m, "recommendation_uncappedtarget", "cpu"), 0.3);
  EXPECT_EQ(value(m, "resource_requests", "memory"), 128e6);
  EXPECT_EQ(value(m, "resource_limits", "memory"), 256e6);
  EXPECT_EQ(value(m, "resource_limits", "cpu"), std::nullopt);  // no CPU limit: no series
  EXPECT_EQ(value(m, "pods"), 3);
  EXPECT_EQ(value(m, "usage_mean", "cpu"), std::nullopt);  // no window yet
  EXPECT_EQ(value(m, "resizes_total"), 0);
}

TEST(WorkloadMetricsTest, UsageIsTheLastPassWindowsMeanAndPeakOverPods) {
  WorkloadMetrics m;
  m.pass(web());
  m.window("shop/web", "app",
           {.cpu_mean = 0.2,
            .cpu_peak = 0.3,
            .memory_mean = 50e6,
            .memory_peak = 60e6,
            .cpu_request = 0.5,
            .seconds = 15});
  m.window("shop/web", "app",
           {.cpu_mean = 0.6,
            .cpu_peak = 0.9,
            .memory_mean = 70e6,
            .memory_peak = 80e6,
            .cpu_request = 0.5,
            .seconds = 15});
  EXPECT_EQ(value(m, "usage_mean", "cpu"), std::nullopt);  // shown from the next pass
  m.pass(web());
  EXPECT_DOUBLE_EQ(*value(m, "usage_mean", "cpu"), 0.4);
  EXPECT_DOUBLE_EQ(*value(m, "usage_peak", "cpu"), 0.9);
  EXPECT_DOUBLE_EQ(*value(m, "usage_mean", "memory"), 60e6);
  EXPECT_DOUBLE_EQ(*value(m, "usage_peak", "memory"), 80e6);
  // 0.1 core above the 0.5 request for 15 s; the first window stayed under it.
  EXPECT_DOUBLE_EQ(*value(m, "cpu_shortfall_core_seconds_total"), 1.5);
  m.pass(web());  // no windows since: the last ones stay
  EXPECT_DOUBLE_EQ(*value(m, "usage_mean", "cpu"), 0.4);
}

TEST(WorkloadMetricsTest, EventsCountPerWorkloadContainerAndGoWithThePolicy) {
  WorkloadMetrics m;
  m.window("shop/web", "app", {.cpu_mean = 1, .cpu_request = 0.5, .seconds = 10});
  m.action("shop/web", false);  // before any pass knows the policy: not counted
  m.pass(web());
  EXPECT_EQ(value(m, "usage_mean", "cpu"), std::nullopt);
  m.action("shop/web", false);
  m.action("shop/web", false);
  m.action("shop/web", true);
  m.action("other/policy", true);
  m.oom_kill("shop/web", "app");
  m.oom_kill("shop/web", "sidecar");  // no such container under the policy
  EXPECT_EQ(value(m, "resizes_total"), 2);
  EXPECT_EQ(value(m, "recreations_total"), 1);
  EXPECT_EQ(value(m, "oom_kills_total"), 1);
  EXPECT_EQ(value(m, "cpu_shortfall_core_seconds_total"), 0);
  m.pass(web());
  EXPECT_EQ(value(m, "resizes_total"), 2);  // counters survive passes
  PassWorkloads moved = web();
  moved["shop/web"].name = "web-v2";  // the policy now targets another workload: counters anew
  m.pass(moved);
  EXPECT_EQ(value(m, "resizes_total"), std::nullopt);  // web's series are gone
  EXPECT_EQ(m.series(), 1u);                           // web-v2's are there
  m.pass({});                                          // the policy is gone
  EXPECT_EQ(m.series(), 0u);
  EXPECT_EQ(value(m, "pods"), std::nullopt);
  EXPECT_EQ(value(m, "resizes_total"), std::nullopt);
}

}  // namespace
}  // namespace tailor::controller
