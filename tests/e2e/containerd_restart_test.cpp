// Issue 16: a node's containerd killed (kill -9) while a pod runs there. Its supervisor (`tailor
// supervise`, as systemd on a real node) starts it again; the pod's container keeps running (its
// containerd-shim holds it: same processes, same container id, restartCount 0), the node is
// Ready, and a pod created afterwards on that node starts (the agent's CRI connection reconnects
// to the new containerd).
#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>

#include "tests/e2e/e2e_cluster.h"
#include "tests/e2e/restart_process.h"
#include "tests/e2e/workload_manifests.h"

namespace tailor::e2e {
namespace {

namespace fs = std::filesystem;
using std::chrono::seconds;

std::string node_ready(const E2eCluster& cluster, const std::string& node) {
  const CommandResult r = cluster.kubectl(
      "get node " + node + " -o 'jsonpath={.status.conditions[?(@.type==\"Ready\")].status}'");
  return r.exit_code == 0 ? r.out : r.err;
}

TEST(ContainerdRestart, AKill9LeavesThePodRunningAndTheNodeStartsNewPods) {
  E2eCluster& cluster = E2eCluster::get();
  TestNamespace ns("e2e-containerd-restart");
  ASSERT_TRUE(ns.apply(pod_manifest({.name = "before"})));
  const std::optional<PodView> before =
      wait_for_ready_pod(ns, "the first pod Ready", "before", seconds(90));
  ASSERT_TRUE(before);
  ASSERT_EQ(before->node, kBigNode);
  const ContainerView first = *before->container("app");
  ASSERT_FALSE(first.container_id.empty());
  const std::vector<int> processes = container_processes(*before, "app");
  ASSERT_FALSE(processes.empty());

  const fs::path pid_file = cluster.dir() / "node-2" / "containerd" / "containerd.pid";
  const pid_t old = live_pid(pid_file);
  ASSERT_GT(old, 0) << pid_file << " names no live process";
  ASSERT_EQ(fs::path(command_line(old).at(0)).filename(), "containerd");
  ASSERT_TRUE(stop_process(old, SIGKILL, seconds(10))) << "containerd outlived SIGKILL";

  pid_t restarted = 0;
  ASSERT_TRUE(
      wait_until("containerd started again by its supervisor", seconds(30), [&](std::string& seen) {
        restarted = live_pid(pid_file);
        seen = pid_file.string() + " names pid " + std::to_string(restarted);
        return restarted != 0 && restarted != old;
      }));
  EXPECT_EQ(fs::path(command_line(restarted).at(0)).filename(), "containerd");
  for (const int pid : processes) {
    EXPECT_EQ(::kill(pid, 0), 0) << "the container's process " << pid << " died with containerd";
  }

  // A new pod on the same node: the agent runs it through the new containerd.
  ASSERT_TRUE(ns.apply(pod_manifest({.name = "after"})));
  const std::optional<PodView> after =
      wait_for_ready_pod(ns, "a pod created after the restart Ready", "after", seconds(90));
  ASSERT_TRUE(after);
  EXPECT_EQ(after->node, kBigNode);
  EXPECT_TRUE(wait_until("the node Ready", seconds(30), [&](std::string& seen) {
    seen = node_ready(cluster, kBigNode);
    return seen == "True";
  }));

  // The first pod was never restarted: same uid, same container, same processes.
  const std::optional<PodView> now = ns.pod("before");
  ASSERT_TRUE(now);
  EXPECT_EQ(now->uid, before->uid);
  EXPECT_TRUE(now->ready()) << now->summary();
  const ContainerView* app = now->container("app");
  ASSERT_NE(app, nullptr);
  EXPECT_EQ(app->container_id, first.container_id);
  EXPECT_EQ(app->restart_count, 0);
  EXPECT_TRUE(app->running);
  EXPECT_EQ(container_processes(*now, "app"), processes);
  EXPECT_EQ(live_pid(pid_file), restarted) << "containerd died again";
}

}  // namespace
}  // namespace tailor::e2e
