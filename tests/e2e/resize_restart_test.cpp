// Issue 15, point 8: resizePolicy RestartContainer on `tailor cluster up`, through the real
// kubectl and `pods/resize` as a user sends it. One pod with three containers, only "c1" asking
// for restarts: a CPU resize of c1, then a memory resize of c1, each completes with c1 restarted
// once (restartCount + 1) and c2, c3 untouched; desired = allocated = actual after each, no
// PodResizeInProgress left, c1's new container has the new cgroup values. A resize of c2
// (NotRequired) then restarts nothing.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <string>

#include "tests/e2e/e2e_cluster.h"
#include "tests/e2e/workload_manifests.h"

namespace tailor::e2e {
namespace {

using std::chrono::seconds;

constexpr seconds kStart{90};   // scheduled, image imported, three containers started
constexpr seconds kResize{60};  // admitted, c1 stopped (grace 0), started again, status written

// c1 restarts on any resize of it; c2 and c3 (NotRequired) are resized in place.
const Resources kSmallRequests{{"cpu", "20m"}, {"memory", "16Mi"}};
const Resources kSmallLimits{{"cpu", "50m"}, {"memory", "32Mi"}};
const std::string kPod = pod_manifest(
    {.name = "rc",
     .containers = {{.name = "c1",
                     .requests = {{"cpu", "50m"}, {"memory", "32Mi"}},
                     .limits = {{"cpu", "100m"}, {"memory", "64Mi"}},
                     .restart_on_resize = {"cpu", "memory"}},
                    {.name = "c2", .requests = kSmallRequests, .limits = kSmallLimits},
                    {.name = "c3", .requests = kSmallRequests, .limits = kSmallLimits}}});

using RestartCounts = std::map<std::string, int>;

RestartCounts restart_counts(const PodView& pod) {
  RestartCounts out;
  for (const ContainerView& c : pod.containers) out[c.name] = c.restart_count;
  return out;
}

// Whether `list` holds `name` at the same amount as `quantity` (as numbers: writers spell them
// differently).
bool holds(const Resources& list, const std::string& name, const std::string& quantity) {
  const auto it = list.find(name);
  if (it == list.end()) return false;
  return name == "cpu" ? milli_cpu(it->second) == milli_cpu(quantity)
                       : bytes(it->second) == bytes(quantity);
}

// Desired, allocated and actual agree for every container, all run, and no resize is in
// progress or pending.
bool settled(const PodView& pod) {
  if (pod.condition("PodResizeInProgress") || pod.condition("PodResizePending")) return false;
  for (const ContainerView& c : pod.containers) {
    if (!c.running) return false;
    for (const auto& [name, quantity] : c.requests) {
      if (!holds(c.allocated, name, quantity) || !holds(c.actual_requests, name, quantity))
        return false;
    }
    for (const auto& [name, quantity] : c.limits) {
      if (!holds(c.actual_limits, name, quantity)) return false;
    }
  }
  return true;
}

class ResizeRestart : public ::testing::Test {
 protected:
  ResizeRestart() : ns_("e2e-resize-restart") {}

  // Sends `patch` to pods/rc/resize with kubectl, waits until the pod settles with
  // `expected` restart counts, and checks c1's cgroup against its new resources.
  void resize_and_expect(const std::string& patch, const RestartCounts& expected) {
    const CommandResult r = ns_.kubectl("patch pod rc --subresource resize -p '" + patch + "'");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::optional<PodView> pod;
    ASSERT_TRUE(wait_until("the resize completed: " + patch, kResize, [&](std::string& seen) {
      pod = ns_.pod("rc");
      seen = pod ? pod->summary() : "no pod";
      if (pod) {
        for (const auto& [name, count] : restart_counts(*pod))
          seen += " " + name + ":restarts=" + std::to_string(count);
        if (const ConditionView* c = pod->condition("PodResizeInProgress"))
          seen += " InProgress/" + c->reason + ": " + c->message;
      }
      return pod && settled(*pod) && restart_counts(*pod) == expected;
    }));
    for (const ContainerView& c : pod->containers) {
      EXPECT_EQ(read_container_cgroup(*pod, c.name),
                expected_container_cgroup(c.requests, c.limits))
          << c.name;
    }
  }

  TestNamespace ns_;
};

TEST_F(ResizeRestart, CpuThenMemoryRestartOnlyTheContainerThatAsksForIt) {
  ASSERT_TRUE(ns_.apply(kPod));
  ASSERT_TRUE(wait_until("rc running", kStart, [&](std::string& seen) {
    const auto pod = ns_.pod("rc");
    seen = pod ? pod->summary() : "no pod";
    return pod && pod->ready() && settled(*pod);
  }));
  const std::string first_id = ns_.pod("rc")->container("c1")->container_id;

  resize_and_expect(
      R"({"spec":{"containers":[{"name":"c1","resources":{"requests":{"cpu":"80m"},"limits":{"cpu":"150m"}}}]}})",
      {{"c1", 1}, {"c2", 0}, {"c3", 0}});
  const std::string second_id = ns_.pod("rc")->container("c1")->container_id;
  EXPECT_NE(second_id, first_id) << "c1 runs in a new container after its restart";

  resize_and_expect(
      R"({"spec":{"containers":[{"name":"c1","resources":{"requests":{"memory":"48Mi"},"limits":{"memory":"96Mi"}}}]}})",
      {{"c1", 2}, {"c2", 0}, {"c3", 0}});
  EXPECT_NE(ns_.pod("rc")->container("c1")->container_id, second_id);

  // c2 has no resizePolicy (NotRequired): resized in place, nothing restarts.
  resize_and_expect(
      R"({"spec":{"containers":[{"name":"c2","resources":{"requests":{"cpu":"30m"},"limits":{"cpu":"60m"}}}]}})",
      {{"c1", 2}, {"c2", 0}, {"c3", 0}});
}

}  // namespace
}  // namespace tailor::e2e
