// tailor_workload_* series (controller/app/workload_series.h): per workload container under a
// policy, from the policy's status, the pods assigned to it and its models' activity, labelled as
// kube-state-metrics' VPA series and written in the text exposition format.
#include "controller/app/workload_series.h"

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <sstream>

#include "kube/model/decode.h"

namespace tailor::controller {
namespace {

using kube::Quantity;

PolicyObject policy(const std::string& name, bool with_recommendation) {
  PolicyObject p{.key = "shop/" + name};
  p.metadata.namespace_ = "shop";
  p.metadata.name = name;
  p.effective = policy::EffectivePolicy{
      .target_ref = policy::CrossVersionObjectReference{"apps/v1", "Deployment", name}};
  if (with_recommendation) {
    p.status.recommendation = policy::RecommendedPodResources{
        {{.container_name = "app",
          .target = {{"cpu", Quantity::parse("250m")}, {"memory", Quantity::parse("100M")}},
          .lower_bound = {{"cpu", Quantity::parse("200m")}},
          .upper_bound = {{"cpu", Quantity::parse("400m")}},
          // The policy's bounds capped CPU; memory is as recommended.
          .uncapped_target = {{"cpu", Quantity::parse("300m")},
                              {"memory", Quantity::parse("100M")}}}}};
  }
  return p;
}

actuator::PodFacts pod(const std::string& name, const std::string& cpu_request) {
  return actuator::pod_facts(kube::decode<kube::Pod>(R"({
    "metadata":{"name":")" + name + R"(","namespace":"shop","uid":"uid-)" +
                                                     name + R"("},
    "spec":{"containers":[
      {"name":"app","resources":{"requests":{"cpu":")" +
                                                     cpu_request +
                                                     R"(","memory":"128M"},
                                 "limits":{"memory":"256M"}}},
      {"name":"sidecar","resources":{}}]},
    "status":{"phase":"Running"}})"));
}

// Series by name and labels ("name{labels}" as written) -> value; checks each family's HELP and
// TYPE come once, before its samples, and the samples of a family are together.
std::map<std::string, double> parse(const std::string& text) {
  std::map<std::string, double> out;
  std::map<std::string, int> families;
  std::string current, line;
  std::istringstream in(text);
  while (std::getline(in, line)) {
    if (line.rfind("# HELP ", 0) == 0) {
      current = line.substr(7, line.find(' ', 7) - 7);
      EXPECT_EQ(++families[current], 1) << "family written twice: " << current;
      EXPECT_NE(line.find("[ALPHA] "), std::string::npos) << line;
      continue;
    }
    if (line.rfind("# TYPE ", 0) == 0) {
      EXPECT_EQ(line.substr(7, current.size()), current) << line;
      continue;
    }
    const auto space = line.rfind(' ');
    const std::string series = line.substr(0, space);
    EXPECT_EQ(series.substr(0, series.find('{')), current) << "sample outside its family: " << line;
    EXPECT_EQ(series.find("pod="), std::string::npos) << line;
    out[series] = std::stod(line.substr(space + 1));
  }
  return out;
}

const std::string kApp =
    R"(namespace="shop",target_kind="Deployment",target_name="web",container="app")";
const std::string kSidecar =
    R"(namespace="shop",target_kind="Deployment",target_name="web",container="sidecar")";
const std::string kCpu = R"(,resource="cpu",unit="core")";
const std::string kMemory = R"(,resource="memory",unit="byte")";

std::optional<double> at(const std::map<std::string, double>& series, const std::string& name,
                         const std::string& labels) {
  auto it = series.find("tailor_workload_" + name + "{" + labels + "}");
  if (it == series.end()) return std::nullopt;
  return it->second;
}

TEST(WorkloadSeriesTest, RecommendationRequestsPodsAndActivityPerWorkloadContainer) {
  WorkloadSeries w({policy("web", true)});
  const actuator::PodFacts first = pod("web-1", "500m");
  w.add_pod("shop/web", first);
  w.add_pod("shop/web", first);  // a replica sharing the spec and status: only counted
  w.add_pod("shop/web", pod("web-3", "700m"));
  w.add_pod("shop/other", pod("other-1", "9"));  // no such policy: ignored
  w.add_model({"shop/web", "app"}, {.pods = 2,
                                    .cpu_mean_sum = 0.6,
                                    .cpu_peak = 0.9,
                                    .memory_sum = 200e6,
                                    .memory_peak = 150e6,
                                    .oom_kills = 1,
                                    .resizes = 2,
                                    .cpu_shortfall_core_seconds = 30});
  w.add_recreations("shop/web", 4);
  std::string text = "# earlier families\n";
  w.write(text);
  ASSERT_EQ(text.rfind("# earlier families\n", 0), 0u);  // appended
  const auto s = parse(text.substr(19));

  EXPECT_EQ(at(s, "recommendation_target", kApp + kCpu), 0.25);
  EXPECT_EQ(at(s, "recommendation_target", kApp + kMemory), 100e6);
  EXPECT_EQ(at(s, "recommendation_lowerbound", kApp + kCpu), 0.2);
  EXPECT_EQ(at(s, "recommendation_lowerbound", kApp + kMemory), std::nullopt);
  EXPECT_EQ(at(s, "recommendation_upperbound", kApp + kCpu), 0.4);
  // Only where the bounds changed the target.
  EXPECT_EQ(at(s, "recommendation_uncappedtarget", kApp + kCpu), 0.3);
  EXPECT_EQ(at(s, "recommendation_uncappedtarget", kApp + kMemory), std::nullopt);
  EXPECT_EQ(at(s, "resource_requests", kApp + kCpu), 0.7);  // the largest of the pods'
  EXPECT_EQ(at(s, "resource_requests", kApp + kMemory), 128e6);
  EXPECT_EQ(at(s, "resource_limits", kApp + kMemory), 256e6);
  EXPECT_EQ(at(s, "resource_limits", kApp + kCpu), std::nullopt);  // no CPU limit
  EXPECT_EQ(at(s, "usage_mean", kApp + kCpu), 0.3);
  EXPECT_EQ(at(s, "usage_mean", kApp + kMemory), 100e6);
  EXPECT_EQ(at(s, "usage_peak", kApp + kCpu), 0.9);
  EXPECT_EQ(at(s, "usage_peak", kApp + kMemory), 150e6);
  EXPECT_EQ(at(s, "pods", kApp), 3);
  EXPECT_EQ(at(s, "oom_kills_total", kApp), 1);
  EXPECT_EQ(at(s, "resizes_total", kApp), 2);
  EXPECT_EQ(at(s, "cpu_shortfall_core_seconds_total", kApp), 30);
  EXPECT_EQ(
      at(s, "recreations_total", R"(namespace="shop",target_kind="Deployment",target_name="web")"),
      4);
  // The sidecar: no recommendation, no resources, no usage yet; its pods and zeroed counters.
  EXPECT_EQ(at(s, "pods", kSidecar), 3);
  EXPECT_EQ(at(s, "oom_kills_total", kSidecar), 0);
  EXPECT_EQ(at(s, "usage_mean", kSidecar + kCpu), std::nullopt);
  EXPECT_EQ(at(s, "recommendation_target", kSidecar + kCpu), std::nullopt);
  // 11 series of app's, 4 of the sidecar's, 1 of the workload's.
  EXPECT_EQ(s.size(), 12u + 4u + 4u + 1u);
}

TEST(WorkloadSeriesTest, OnlyValidClaimedPoliciesWithATarget) {
  PolicyObject invalid = policy("broken", true);
  invalid.effective.reset();
  PolicyObject unclaimed = policy("vpa", true);
  unclaimed.claimed = false;
  PolicyObject selector_only = policy("selected", true);
  selector_only.effective->target_ref.reset();
  WorkloadSeries w({invalid, unclaimed, selector_only, policy("web", false)});
  for (const char* p : {"shop/broken", "shop/vpa", "shop/selected"}) {
    EXPECT_FALSE(w.has(p)) << p;
    w.add_pod(p, pod("x", "1"));
    w.add_model({p, "app"}, {.pods = 1, .cpu_mean_sum = 1});
  }
  ASSERT_TRUE(w.has("shop/web"));
  std::string text;
  w.write(text);
  // Every family's HELP and TYPE, no sample: web has no containers yet.
  EXPECT_EQ(parse(text).size(), 0u);
  EXPECT_EQ(text.find("target_name"), std::string::npos);
}

TEST(WorkloadSeriesTest, LabelValuesEscaped) {
  PolicyObject p = policy("web", false);
  p.effective->target_ref->name = "we\"b\\x\ny";
  WorkloadSeries w({p});
  w.add_pod("shop/web", pod("web-1", "1"));
  std::string text;
  w.write(text);
  EXPECT_NE(text.find(R"(target_name="we\"b\\x\ny",container="app")"), std::string::npos) << text;
}

}  // namespace
}  // namespace tailor::controller
