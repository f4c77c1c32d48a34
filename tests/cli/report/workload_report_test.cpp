#include "cli/workload_report.h"

#include <gtest/gtest.h>

#include <map>
#include <tuple>

namespace tailor::cli {
namespace {

constexpr double kMi = 1024.0 * 1024.0;

kube::TimePoint at(const char* rfc3339) { return kube::parse_rfc3339(rfc3339); }

TEST(MonthlyCost, PricesTheChangeOfEveryPodForAMonth) {
  ContainerRow r{.pods = 3};
  r.cpu = {.request = 0.5, .target = 0.25};
  r.memory = {.request = 1 * kGiB, .target = 1.5 * kGiB};
  const CostChange c = monthly_cost_change(r, {.cpu_core_hour = 0.04, .memory_gib_hour = 0.005});
  // -0.25 core x 3 pods x 0.04 x 730 h; +0.5 GiB x 3 x 0.005 x 730 h.
  EXPECT_NEAR(*c.cpu, -21.9, 1e-9);
  EXPECT_NEAR(*c.memory, 5.475, 1e-9);
  EXPECT_NEAR(*c.total(), -16.425, 1e-9);
}

TEST(MonthlyCost, NoRequestCountsAsZeroAndNoTargetAsUnknown) {
  ContainerRow r{.pods = 1};
  r.cpu = {.target = 1.0};
  const CostChange c = monthly_cost_change(r, Prices{});
  EXPECT_NEAR(*c.cpu, 0.021811 * 730, 1e-9);  // the documented default price
  EXPECT_FALSE(c.memory);
  EXPECT_NEAR(*c.total(), *c.cpu, 1e-12);
  r.cpu.target.reset();
  EXPECT_FALSE(monthly_cost_change(r, Prices{}).total());
}

TEST(MonthlyCost, NothingWithoutPods) {
  ContainerRow r{.pods = 0};
  r.cpu = {.request = 0.1, .target = 1.0};
  EXPECT_FALSE(monthly_cost_change(r, Prices{}).total());
}

TEST(OomKills, CountsTheLastDayOnly) {
  kube::ContainerStatus s;
  s.last_state.terminated =
      kube::ContainerStateTerminated{.reason = "OOMKilled", .finished_at = "2026-01-01T10:00:00Z"};
  const auto day = std::chrono::hours(24);
  EXPECT_EQ(oom_kills_since(s, at("2026-01-02T09:59:00Z"), day), 1);
  EXPECT_EQ(oom_kills_since(s, at("2026-01-02T10:01:00Z"), day), 0);
  s.state.terminated =
      kube::ContainerStateTerminated{.reason = "OOMKilled", .finished_at = "2026-01-02T10:00:00Z"};
  EXPECT_EQ(oom_kills_since(s, at("2026-01-02T10:00:30Z"), day), 1);
  s.last_state.terminated->reason = "Error";
  s.state.terminated->reason = "Completed";
  EXPECT_EQ(oom_kills_since(s, at("2026-01-01T10:00:30Z"), day), 0);
}

// Owners known by namespace, kind and name.
class Owners : public policy::OwnerLookup {
 public:
  void add(kube::ObjectMeta m, std::string kind) {
    known_[{m.namespace_, std::move(kind), m.name}] = std::move(m);
  }
  // Deployment NAME in "shop" and its ReplicaSet NAME-1 (uids as names).
  void add_deployment(const std::string& name) {
    const std::string rs = name + "-1";
    add({.name = rs,
         .namespace_ = "shop",
         .uid = rs,
         .owner_references = {{.api_version = "apps/v1",
                               .kind = "Deployment",
                               .name = name,
                               .uid = name,
                               .controller = true}}},
        "ReplicaSet");
    add({.name = name, .namespace_ = "shop", .uid = name}, "Deployment");
  }
  const kube::ObjectMeta* find(std::string_view ns,
                               const kube::OwnerReference& owner) const override {
    auto it = known_.find({std::string(ns), owner.kind, owner.name});
    return it == known_.end() ? nullptr : &it->second;
  }

 private:
  std::map<std::tuple<std::string, std::string, std::string>, kube::ObjectMeta> known_;
};

kube::Pod pod(std::string name, std::string rs, const char* cpu, const char* memory) {
  kube::Pod p;
  p.metadata = {.name = std::move(name), .namespace_ = "shop", .uid = "uid-" + rs};
  p.metadata.uid += p.metadata.name;
  p.metadata.owner_references = {
      {.api_version = "apps/v1", .kind = "ReplicaSet", .name = rs, .uid = rs, .controller = true}};
  kube::Container c{.name = "app"};
  c.resources.requests = {{"cpu", kube::Quantity::parse(cpu)},
                          {"memory", kube::Quantity::parse(memory)}};
  p.spec.containers = {c};
  kube::ContainerStatus s{.name = "app", .restart_count = 2};
  s.last_state.terminated =
      kube::ContainerStateTerminated{.reason = "OOMKilled", .finished_at = "2026-01-02T09:00:00Z"};
  p.status.container_statuses = {s};
  return p;
}

ReportPolicy policy_for(std::string name, std::string deployment) {
  ReportPolicy p;
  p.effective.metadata = {
      .name = std::move(name), .namespace_ = "shop", .creation_timestamp = "2026-01-01T00:00:00Z"};
  p.effective.target_ref =
      policy::CrossVersionObjectReference{"apps/v1", "Deployment", std::move(deployment)};
  policy::RecommendedContainerResources r{.container_name = "app"};
  r.target = {{"cpu", kube::Quantity::parse("300m")}, {"memory", kube::Quantity::parse("128Mi")}};
  r.lower_bound = {{"cpu", kube::Quantity::parse("200m")}};
  p.status.recommendation = policy::RecommendedPodResources{{r}};
  return p;
}

TEST(BuildRows, OneRowPerContainerOfThePolicysPodsOnly) {
  Owners owners;
  owners.add_deployment("web");
  owners.add_deployment("other");
  const std::vector<kube::Pod> pods = {pod("web-1-b", "web-1", "100m", "256Mi"),
                                       pod("web-1-a", "web-1", "150m", "200Mi"),
                                       pod("other-1-a", "other-1", "1", "1Gi")};
  HistoryIndex history;
  history[history_key(policy::PolicyApi::VerticalScalingPolicy, "shop", "web-policy", "app")] = {
      2.5, 900};
  const auto rows = report_rows(pods, {policy_for("web-policy", "web")}, owners, history,
                                at("2026-01-02T12:00:00Z"))
                        .rows;
  ASSERT_EQ(rows.size(), 1u);
  const ContainerRow& r = rows[0];
  EXPECT_EQ(r.workload_kind, "Deployment");
  EXPECT_EQ(r.workload_name, "web");
  EXPECT_EQ(r.policy_name, "web-policy");
  EXPECT_EQ(r.pods, 2);
  EXPECT_DOUBLE_EQ(*r.cpu.request, 0.15);  // web-1-a, the first by name
  EXPECT_DOUBLE_EQ(*r.memory.request, 200 * kMi);
  EXPECT_DOUBLE_EQ(*r.cpu.target, 0.3);
  EXPECT_DOUBLE_EQ(*r.cpu.lower_bound, 0.2);
  EXPECT_FALSE(r.cpu.upper_bound);
  EXPECT_DOUBLE_EQ(*r.cpu.change(), 0.15);
  EXPECT_EQ(r.oom_kills_last_day, 2);
  EXPECT_EQ(r.restarts, 4);
  ASSERT_TRUE(r.history);
  EXPECT_EQ(r.history->samples, 900);
}

TEST(UnpolicedWorkloads, ThePodsOfNoPolicyByTopController) {
  Owners owners;
  owners.add_deployment("web");
  owners.add_deployment("other");
  kube::Pod bare = pod("bare", "none", "10m", "8Mi");
  bare.metadata.owner_references.clear();
  kube::Pod done = pod("other-1-done", "other-1", "1", "1Gi");
  done.status.phase = "Succeeded";
  const std::vector<kube::Pod> pods = {pod("web-1-a", "web-1", "100m", "256Mi"),
                                       pod("other-1-b", "other-1", "1", "1Gi"),
                                       pod("other-1-a", "other-1", "2", "2Gi"), bare, done};
  const auto w =
      report_rows(pods, {policy_for("web-policy", "web")}, owners, {}, at("2026-01-02T12:00:00Z"))
          .unpoliced;
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(w[0].kind, "Deployment");
  EXPECT_EQ(w[0].name, "other");
  EXPECT_EQ(w[0].pods, (std::vector<std::string>{"other-1-a", "other-1-b"}));
  EXPECT_DOUBLE_EQ(w[0].requests.at("app").first, 2.0);  // other-1-a's, the first by name
  EXPECT_DOUBLE_EQ(w[0].requests.at("app").second, 2048 * kMi);
  EXPECT_EQ(w[1].kind, "Pod");
  EXPECT_EQ(w[1].name, "bare");
}

TEST(BuildRows, APolicyWithoutPodsOrRecommendationStillHasItsRow) {
  Owners owners;
  ReportPolicy gone = policy_for("gone", "missing");
  gone.status = {};
  gone.note = "Cannot read targetRef. Reason: Deployment shop/missing does not exist";
  const auto rows = report_rows({}, {gone}, owners, {}, at("2026-01-02T12:00:00Z")).rows;
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].container, "");
  EXPECT_EQ(rows[0].pods, 0);
  EXPECT_EQ(rows[0].note, gone.note);
  EXPECT_FALSE(rows[0].history);
}

}  // namespace
}  // namespace tailor::cli
