#include "node-agent/cri/actuation_plan.h"

#include <gtest/gtest.h>

namespace tailor::node::cri {
namespace {

constexpr std::int64_t kMi = 1024 * 1024;
using A = ResourceAmounts;

PodResize resize_of(const std::vector<A>& from, const std::vector<A>& to) {
  PodResize resize;
  resize.pod_actuated = pod_cgroup_values(from, {}, qos_of(from));
  resize.pod_desired = pod_cgroup_values(to, {}, qos_of(to));
  for (std::size_t i = 0; i < from.size(); ++i) {
    resize.containers.push_back({"c" + std::to_string(i), container_cgroup_values(from[i]),
                                 container_cgroup_values(to[i])});
  }
  return resize;
}

struct State {
  CgroupValues pod;
  std::vector<CgroupValues> containers;
};

void apply(State& state, const ActuationStep& step) {
  if (step.target == ActuationStep::Target::Container) {
    state.containers[step.container] = step.values;
    return;
  }
  const CgroupValues& v = step.values;
  if (v.cpu_shares) state.pod.cpu_shares = v.cpu_shares;
  if (v.cpu_quota_us) state.pod.cpu_quota_us = v.cpu_quota_us;
  if (v.cpu_period_us) state.pod.cpu_period_us = v.cpu_period_us;
  if (v.memory_limit_bytes) state.pod.memory_limit_bytes = v.memory_limit_bytes;
}

// Σ container limits ≤ pod limit, for each resource the pod limits.
void expect_invariant(const State& state, const std::string& where) {
  if (state.pod.memory_limit_bytes) {
    std::int64_t sum = 0;
    for (const auto& c : state.containers) sum += c.memory_limit_bytes.value_or(INT64_MAX / 4);
    EXPECT_LE(sum, *state.pod.memory_limit_bytes) << "memory " << where;
  }
  if (state.pod.cpu_quota_us && *state.pod.cpu_quota_us > 0) {
    std::int64_t sum = 0;
    for (const auto& c : state.containers) {
      sum += *c.cpu_quota_us > 0 ? *c.cpu_quota_us : INT64_MAX / 4;
    }
    EXPECT_LE(sum, *state.pod.cpu_quota_us) << "cpu " << where;
  }
}

// Executes the plan step by step, checking the invariant after each, and that it ends at the
// desired values.
void run(const PodResize& resize, const std::string& name) {
  State state{resize.pod_actuated, {}};
  for (const auto& c : resize.containers) state.containers.push_back(c.actuated);
  expect_invariant(state, name + " before");
  const auto steps = plan_pod_resize(resize);
  for (std::size_t i = 0; i < steps.size(); ++i) {
    apply(state, steps[i]);
    expect_invariant(state, name + " after step " + std::to_string(i));
  }
  EXPECT_EQ(state.pod, resize.pod_desired) << name;
  for (std::size_t i = 0; i < resize.containers.size(); ++i) {
    EXPECT_EQ(state.containers[i], resize.containers[i].desired) << name << " container " << i;
  }
}

TEST(PlanPodResize, KepTestPlanCasesKeepTheInvariant) {
  const A g1{500, 500, 128 * kMi, 128 * kMi};
  struct Case {
    const char* name;
    std::vector<A> from, to;
  };
  const std::vector<Case> cases = {
      {"guaranteed cpu increase", {g1}, {{800, 800, 128 * kMi, 128 * kMi}}},
      {"guaranteed memory decrease", {g1}, {{500, 500, 64 * kMi, 64 * kMi}}},
      {"guaranteed both increase", {g1}, {{900, 900, 256 * kMi, 256 * kMi}}},
      {"guaranteed cpu up memory down", {g1}, {{900, 900, 64 * kMi, 64 * kMi}}},
      {"burstable cpu down memory up",
       {{200, 400, 64 * kMi, 128 * kMi}},
       {{100, 300, 64 * kMi, 200 * kMi}}},
      {"three containers net increase",
       {{100, 200, 50 * kMi, 100 * kMi},
        {200, 400, 50 * kMi, 200 * kMi},
        {300, 600, 50 * kMi, 300 * kMi}},
       {{150, 300, 50 * kMi, 150 * kMi},
        {100, 200, 50 * kMi, 100 * kMi},
        {400, 900, 50 * kMi, 500 * kMi}}},
      {"three containers net decrease",
       {{100, 200, 50 * kMi, 100 * kMi},
        {200, 400, 50 * kMi, 200 * kMi},
        {300, 600, 50 * kMi, 300 * kMi}},
       {{150, 300, 50 * kMi, 150 * kMi},
        {100, 100, 50 * kMi, 50 * kMi},
        {200, 300, 50 * kMi, 250 * kMi}}},
      {"three containers no net change",
       {{100, 200, 50 * kMi, 100 * kMi},
        {200, 400, 50 * kMi, 200 * kMi},
        {300, 600, 50 * kMi, 300 * kMi}},
       {{200, 300, 50 * kMi, 200 * kMi},
        {100, 300, 50 * kMi, 100 * kMi},
        {300, 600, 50 * kMi, 300 * kMi}}},
  };
  for (const auto& c : cases) run(resize_of(c.from, c.to), c.name);
}

TEST(PlanPodResize, MemoryFirstPodLimitRaisedFirstAndLoweredLast) {
  // c0 memory down, c1 memory up (net increase); c0 cpu up, c1 cpu down (net decrease).
  const auto resize = resize_of({{200, 400, 64 * kMi, 100 * kMi}, {200, 400, 64 * kMi, 100 * kMi}},
                                {{300, 500, 64 * kMi, 80 * kMi}, {100, 200, 64 * kMi, 150 * kMi}});
  const auto steps = plan_pod_resize(resize);
  using T = ActuationStep::Target;
  using R = ResizeResource;
  std::vector<std::tuple<T, R, std::size_t>> order;
  for (const auto& s : steps)
    order.emplace_back(s.target, s.resource, s.target == T::Container ? s.container : 99);
  const std::vector<std::tuple<T, R, std::size_t>> expected = {
      {T::PodCgroup, R::Memory, 99},  // pod memory limit up: 200Mi -> 230Mi
      {T::Container, R::Memory, 0},   // decrease first
      {T::Container, R::Memory, 1},
      {T::Container, R::Cpu, 1},  // cpu decrease first
      {T::Container, R::Cpu, 0},
      {T::PodCgroup, R::Cpu, 99},  // pod shares down (400m -> 400m: unchanged? see below)
  };
  // Requests sum 400m -> 400m: shares unchanged; quota 800m -> 700m: lowered last.
  ASSERT_EQ(order.size(), expected.size());
  EXPECT_EQ(order, expected);
  EXPECT_EQ(steps.back().values.cpu_quota_us, 70000);
  EXPECT_FALSE(steps.back().values.cpu_shares.has_value());
  // A container step carries the other resource as actuated so far.
  EXPECT_EQ(steps[1].values.cpu_quota_us, 40000);
  EXPECT_EQ(steps[1].values.memory_limit_bytes, 80 * kMi);
  run(resize, "mixed");
}

TEST(PlanPodResize, NothingToDoGivesNoSteps) {
  const std::vector<A> same = {{100, 200, 64 * kMi, 128 * kMi}};
  EXPECT_TRUE(plan_pod_resize(resize_of(same, same)).empty());
}

TEST(PlanPodResize, SharesOnlyChangeOrdersPodSharesAroundContainers) {
  const auto up = plan_pod_resize(
      resize_of({{100, std::nullopt, 0, std::nullopt}}, {{300, std::nullopt, 0, std::nullopt}}));
  ASSERT_EQ(up.size(), 2u);
  EXPECT_EQ(up[0].target, ActuationStep::Target::PodCgroup);
  EXPECT_EQ(up[0].values.cpu_shares, 307);
  EXPECT_EQ(up[1].target, ActuationStep::Target::Container);
  const auto down = plan_pod_resize(
      resize_of({{300, std::nullopt, 0, std::nullopt}}, {{100, std::nullopt, 0, std::nullopt}}));
  ASSERT_EQ(down.size(), 2u);
  EXPECT_EQ(down[0].target, ActuationStep::Target::Container);
  EXPECT_EQ(down[1].values.cpu_shares, 102);
}

}  // namespace
}  // namespace tailor::node::cri
