// The demo's pure parts: YAML manifests to JSON, API lists to views, the scenario's sizing and
// the checks that decide its exit code.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "cli/demo_api.h"
#include "cli/demo_manifests.h"
#include "cli/demo_summary.h"
#include "cli/demo_yaml.h"

namespace tailor::cli::demo {
namespace {
namespace bj = boost::json;

TEST(DemoYaml, ScalarsFollowTheCoreSchemaAndQuotedOnesStayStrings) {
  auto docs = yaml_documents_to_json(R"(
a: true
b: "true"
c: 12
d: '12'
e: 1.5
f: ~
g: [x, 2]
h: |
  text
---
---
i: 0x10
)");
  ASSERT_EQ(docs.size(), 2u);
  EXPECT_EQ(bj::parse(docs[0]),
            bj::parse(R"({"a":true,"b":"true","c":12,"d":"12","e":1.5,"f":null,"g":["x",2],)"
                      R"("h":"text\n"})"));
  EXPECT_EQ(bj::parse(docs[1]), bj::parse(R"({"i":16})"));
}

TEST(DemoYaml, SyntaxErrorNamesTheLine) {
  try {
    yaml_documents_to_json("a: b\nc: [d\n");
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("line"), std::string::npos) << e.what();
  }
}

TEST(DemoApi, DecodesPodsWithStatusResourcesAndConditions) {
  auto pods = decode_pods(R"({"items":[{"metadata":{"name":"p","uid":"u","generation":2,
    "labels":{"app":"web"},"deletionTimestamp":"2026-01-01T00:00:00Z",
    "ownerReferences":[{"kind":"ReplicaSet","name":"web-1"}]},
    "spec":{"nodeName":"n1","containers":[{"name":"app","resources":{"requests":{"cpu":"1"}}}]},
    "status":{"phase":"Running","conditions":[{"type":"PodResizePending","status":"True",
      "reason":"Deferred","message":"m"}],
      "containerStatuses":[{"name":"app","restartCount":3,"state":{"running":{}},
        "resources":{"requests":{"cpu":"2"},"limits":{"memory":"1Gi"}}}]}}]})");
  ASSERT_EQ(pods.size(), 1u);
  const PodView& p = pods[0];
  EXPECT_EQ(p.app, "web");
  EXPECT_EQ(p.node, "n1");
  EXPECT_TRUE(p.terminating);
  EXPECT_EQ(p.owner_kind, "ReplicaSet");
  EXPECT_EQ(p.generation, 2);
  ASSERT_NE(p.container("app"), nullptr);
  EXPECT_EQ(p.container("app")->requests.at("cpu"), "1");
  EXPECT_EQ(p.container("app")->actual_requests.at("cpu"), "2");
  EXPECT_EQ(p.container("app")->actual_limits.at("memory"), "1Gi");
  EXPECT_EQ(p.container("app")->restart_count, 3);
  EXPECT_TRUE(p.container("app")->running);
  ASSERT_NE(p.condition("PodResizePending"), nullptr);
  EXPECT_EQ(p.condition("PodResizePending")->reason, "Deferred");
}

TEST(DemoApi, DecodesPolicyTargetsAndRejectsWhatIsNoList) {
  auto policies = decode_policies(R"({"items":[{"metadata":{"name":"web"},"status":{
    "recommendation":{"containerRecommendations":[{"containerName":"app",
      "target":{"cpu":"250m","memory":"180Mi"}}]}}}]})");
  ASSERT_EQ(policies.size(), 1u);
  EXPECT_EQ(policies[0].targets.at("app").at("memory"), "180Mi");
  EXPECT_TRUE(decode_events(R"({"items":null})").empty());
  EXPECT_THROW(decode_nodes(R"({"kind":"Status"})"), std::runtime_error);
  EXPECT_THROW(decode_pods("not json"), std::runtime_error);
}

std::vector<NodeView> nodes(std::initializer_list<std::pair<const char*, const char*>> sizes) {
  std::vector<NodeView> out;
  for (auto [name, memory] : sizes) {
    out.push_back({.name = name, .allocatable = {{"memory", memory}}, .ready = true});
  }
  return out;
}

TEST(DemoPlan, SizesTheCasesFromTheSmallAndTheBigNode) {
  Plan plan = plan_scenario(nodes({{"big", "3Gi"}, {"small", "1Gi"}}));
  EXPECT_EQ(plan.small_node, "small");
  EXPECT_EQ(plan.big_node, "big");
  EXPECT_TRUE(plan.fallbacks) << plan.why_no_fallbacks;
  // The grower outgrows the small node. On the big node the initial requests fit next to the
  // ballast, the cache's grown request does not, and without the ballast everything fits.
  EXPECT_GT(plan.grower_mi, plan.small_memory_mi);
  EXPECT_LE(plan.ballast_mi + (plan.web_replicas + 1) * 64, plan.big_memory_mi);
  EXPECT_GT(plan.ballast_mi + plan.web_replicas * 300 + plan.cache_mi, plan.big_memory_mi);
  EXPECT_LT(plan.web_replicas * 300 + plan.cache_mi + plan.grower_mi * 5 / 4, plan.big_memory_mi);
  EXPECT_EQ(policies(plan).size(), 3u);
  EXPECT_EQ(workloads(plan).size(), 4u);
}

// Tailor's own pods on the big node (tailor demo --in-cluster): the ballast leaves their memory
// to them, so the cases still fit as above; a node they fill too much has no fallbacks.
TEST(DemoPlan, TheBallastLeavesOtherPodsMemoryToThem) {
  std::vector<NodeView> with_tailor = nodes({{"big", "3Gi"}, {"small", "1Gi"}});
  with_tailor[0].requested_memory_mi = 176;  // a controller and an agent
  const Plan alone = plan_scenario(nodes({{"big", "3Gi"}, {"small", "1Gi"}}));
  const Plan plan = plan_scenario(with_tailor);
  EXPECT_TRUE(plan.fallbacks) << plan.why_no_fallbacks;
  EXPECT_EQ(plan.ballast_mi, alone.ballast_mi - 176);
  EXPECT_EQ(plan.grower_mi, alone.grower_mi) << "Infeasible is against allocatable alone";
  const std::int64_t free_mi = plan.big_memory_mi - 176;
  EXPECT_GT(plan.ballast_mi + plan.web_replicas * 300 + plan.cache_mi, free_mi);
  EXPECT_LT(plan.web_replicas * 300 + plan.cache_mi + plan.grower_mi * 5 / 4, free_mi);
  with_tailor[0].requested_memory_mi = 1500;
  EXPECT_FALSE(plan_scenario(with_tailor).fallbacks);
}

TEST(DemoPlan, OneNodeOrHugeNodesOnlyResizeInPlace) {
  Plan one = plan_scenario(nodes({{"n", "8Gi"}}));
  EXPECT_FALSE(one.fallbacks);
  EXPECT_EQ(policies(one).size(), 1u);
  EXPECT_EQ(workloads(one).size(), 1u);
  EXPECT_FALSE(plan_scenario(nodes({{"a", "16Gi"}, {"b", "64Gi"}})).fallbacks);
  EXPECT_FALSE(plan_scenario(nodes({{"a", "1Gi"}, {"b", "1200Mi"}})).fallbacks);
  EXPECT_THROW(plan_scenario({}), std::runtime_error);
}

TEST(DemoChecks, EveryCaseMustHappenWithoutRestarts) {
  Plan plan = plan_scenario(nodes({{"big", "3Gi"}, {"small", "1Gi"}}));
  Summary s;
  s.in_place_resizes = 2;
  s.recreations = {{"Infeasible", 1}, {"Deferred", 0}};
  s.deferred_completed = 1;
  EXPECT_TRUE(all_ok(evaluate(s, plan)));
  s.restarts_caused = 1;
  EXPECT_FALSE(all_ok(evaluate(s, plan)));
  s.restarts_caused = 0;
  s.recreations["Infeasible"] = 0;
  EXPECT_FALSE(all_ok(evaluate(s, plan)));
  plan.fallbacks = false;
  EXPECT_TRUE(all_ok(evaluate(s, plan)));
  const std::string json = report_json(s, plan, evaluate(s, plan), {.ns = "x"});
  bj::object o = bj::parse(json).as_object();
  EXPECT_EQ(o.at("in_place_resizes").as_int64(), 2);
  EXPECT_EQ(o.at("recreations").at("Infeasible").as_int64(), 0);
  EXPECT_TRUE(o.at("success").as_bool());
}

}  // namespace
}  // namespace tailor::cli::demo
