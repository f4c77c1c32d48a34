#include "node-agent/cri/resize_restarts.h"

#include <gtest/gtest.h>

namespace tailor::node::cri {
namespace {

using Action = ContainerResizeAction;

std::vector<kube::ContainerResizePolicy> policy(const std::string& cpu, const std::string& memory) {
  std::vector<kube::ContainerResizePolicy> out;
  if (!cpu.empty()) out.push_back({"cpu", cpu});
  if (!memory.empty()) out.push_back({"memory", memory});
  return out;
}

ResourceAmounts amounts(std::int64_t cpu_request, std::int64_t cpu_limit,
                        std::int64_t memory_request, std::int64_t memory_limit) {
  ResourceAmounts a;
  if (cpu_request) a.cpu_request_milli = cpu_request;
  if (cpu_limit) a.cpu_limit_milli = cpu_limit;
  if (memory_request) a.memory_request_bytes = memory_request;
  if (memory_limit) a.memory_limit_bytes = memory_limit;
  return a;
}

struct ActionCase {
  const char* name;
  std::string cpu_policy, memory_policy;
  ResourceAmounts actual, allocated;
  Action want;
};

constexpr std::int64_t Mi = 1 << 20;
const ResourceAmounts kBase = amounts(100, 200, 100 * Mi, 200 * Mi);

// KEP-1287 "Resize Policy Tests": the policy of a changed resource decides; RestartContainer
// wins over NotRequired; a policy on an unchanged resource does nothing.
const ActionCase kActionCases[] = {
    {"nothing changed", "RestartContainer", "RestartContainer", kBase, kBase, Action::None},
    {"cpu request, default policy", "", "", kBase, amounts(150, 200, 100 * Mi, 200 * Mi),
     Action::UpdateInPlace},
    {"cpu limit, NotRequired", "NotRequired", "NotRequired", kBase,
     amounts(100, 300, 100 * Mi, 200 * Mi), Action::UpdateInPlace},
    {"cpu limit, cpu RestartContainer", "RestartContainer", "", kBase,
     amounts(100, 300, 100 * Mi, 200 * Mi), Action::Restart},
    {"cpu request, cpu RestartContainer", "RestartContainer", "NotRequired", kBase,
     amounts(50, 200, 100 * Mi, 200 * Mi), Action::Restart},
    {"cpu changed, memory RestartContainer", "NotRequired", "RestartContainer", kBase,
     amounts(150, 300, 100 * Mi, 200 * Mi), Action::UpdateInPlace},
    {"memory limit, memory RestartContainer", "", "RestartContainer", kBase,
     amounts(100, 200, 100 * Mi, 300 * Mi), Action::Restart},
    {"memory limit down, memory RestartContainer", "", "RestartContainer", kBase,
     amounts(100, 200, 100 * Mi, 150 * Mi), Action::Restart},
    {"memory changed, cpu RestartContainer", "RestartContainer", "NotRequired", kBase,
     amounts(100, 200, 100 * Mi, 300 * Mi), Action::UpdateInPlace},
    {"both changed, RestartContainer wins over NotRequired", "NotRequired", "RestartContainer",
     kBase, amounts(150, 300, 100 * Mi, 300 * Mi), Action::Restart},
    {"both changed, cpu RestartContainer wins", "RestartContainer", "NotRequired", kBase,
     amounts(150, 300, 100 * Mi, 300 * Mi), Action::Restart},
    {"memory request only never reaches a cgroup", "", "RestartContainer", kBase,
     amounts(100, 200, 150 * Mi, 200 * Mi), Action::None},
    {"limit added", "RestartContainer", "", amounts(100, 0, 0, 0), amounts(100, 500, 0, 0),
     Action::Restart},
    {"memory limit removed", "", "NotRequired", amounts(100, 0, 0, 64 * Mi), amounts(100, 0, 0, 0),
     Action::UpdateInPlace},
};

TEST(ContainerResizeAction, Table) {
  for (const ActionCase& c : kActionCases) {
    const auto p = policy(c.cpu_policy, c.memory_policy);
    EXPECT_EQ(container_resize_action(p, c.actual, c.allocated), c.want)
        << c.name << ": got " << to_string(container_resize_action(p, c.actual, c.allocated));
  }
}

TEST(ContainerResizeAction, UnknownRestartPolicyIsAnErrorNamingIt) {
  try {
    container_resize_action(policy("Sometimes", ""), kBase, amounts(150, 200, 100 * Mi, 200 * Mi));
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "resizePolicy cpu: unsupported restartPolicy \"Sometimes\" (NotRequired, "
                 "RestartContainer)");
  }
}

TEST(PlanContainerResizes, RestartsOnlyTheContainersWhosePolicyAsksForIt) {
  const RunningContainerResize containers[] = {
      {"java", policy("", "RestartContainer"), kBase, amounts(100, 200, 100 * Mi, 400 * Mi)},
      {"sidecar", policy("", "NotRequired"), kBase, amounts(100, 200, 100 * Mi, 400 * Mi)},
      {"idle", policy("RestartContainer", "RestartContainer"), kBase, kBase},
      {"web", {}, kBase, amounts(300, 600, 100 * Mi, 200 * Mi)},
  };
  const ContainerResizePlan plan = plan_container_resizes(containers);
  EXPECT_EQ(plan.restart, std::vector<std::string>{"java"});
  EXPECT_EQ(plan.update_in_place, (std::vector<std::string>{"sidecar", "web"}));
}

}  // namespace
}  // namespace tailor::node::cri
