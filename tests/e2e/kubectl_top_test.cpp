// Issue 15, point 8: `kubectl top` on `tailor cluster up`, with the real kubectl. The node agent
// serves the kubelet's /metrics/resource from its cgroup reads and names it on its Node
// (daemonEndpoints); tailor-cluster scrapes it every 15 s as metrics-server does and serves
// metrics.k8s.io. A pod that spins under a 200m limit and holds 24 MiB in tmpfs shows that CPU
// and memory; its node shows at least as much; an unknown pod is metrics-server's NotFound.
#include <gtest/gtest.h>

#include <chrono>
#include <regex>
#include <string>

#include "tests/e2e/e2e_cluster.h"
#include "tests/e2e/workload_manifests.h"

namespace tailor::e2e {
namespace {

using std::chrono::seconds;

// Two scrapes 15 s apart after the pod runs, and the agent's first reads.
constexpr seconds kMetrics{120};

const std::string kPod = pod_manifest(
    {.name = "spinner",
     .labels = {{"app", "spinner"}},
     .containers = {{.name = "spin",
                     .command = shell("head -c 25165824 /dev/zero > /dev/shm/held; while true; do "
                                      ":; done"),
                     .requests = {{"cpu", "50m"}, {"memory", "64Mi"}},
                     .limits = {{"cpu", "200m"}, {"memory", "128Mi"}}},
                    {.name = "idle", .requests = {{"cpu", "10m"}, {"memory", "16Mi"}}}}});

// The row of `name` in kubectl top's table: its CPU in millicores and memory in MiB.
struct TopRow {
  long cpu_milli = -1;
  long memory_mi = -1;
};

std::optional<TopRow> row_of(const std::string& table, const std::string& row_start) {
  std::smatch m;
  if (!std::regex_search(table, m, std::regex(row_start + R"(\s+(\d+)m\s+(?:\d+%\s+)?(\d+)Mi)"))) {
    return std::nullopt;
  }
  return TopRow{std::stol(m[1]), std::stol(m[2])};
}

class KubectlTop : public ::testing::Test {
 protected:
  KubectlTop() : ns_("e2e-kubectl-top") {}
  void SetUp() override {
    ASSERT_TRUE(ns_.apply(kPod));
    ASSERT_TRUE(wait_until("kubectl top pod spinner answers", kMetrics, [&](std::string& seen) {
      const CommandResult r = ns_.kubectl("top pod spinner");
      seen = r.out + r.err;
      return r.exit_code == 0;
    }));
  }
  TestNamespace ns_;
};

TEST_F(KubectlTop, PodAndContainersShowTheirCpuAndMemory) {
  const CommandResult pods = ns_.kubectl("top pod");
  ASSERT_EQ(pods.exit_code, 0) << pods.err;
  const auto pod = row_of(pods.out, "\nspinner");
  ASSERT_TRUE(pod) << pods.out;
  // Spinning under a 200m quota on a shared machine: clearly busy, never above the limit (plus
  // the rounding of a 15 s window). 24 MiB of tmpfs are in the working set.
  EXPECT_GE(pod->cpu_milli, 20) << pods.out;
  EXPECT_LE(pod->cpu_milli, 215) << pods.out;
  EXPECT_GE(pod->memory_mi, 24) << pods.out;
  EXPECT_LE(pod->memory_mi, 64) << pods.out;

  const CommandResult containers = ns_.kubectl("top pod -l app=spinner --containers");
  ASSERT_EQ(containers.exit_code, 0) << containers.err;
  const auto spin = row_of(containers.out, R"(spinner\s+spin)");
  const auto idle = row_of(containers.out, R"(spinner\s+idle)");
  ASSERT_TRUE(spin && idle) << containers.out;
  EXPECT_GE(spin->cpu_milli, 20) << containers.out;
  EXPECT_LE(idle->cpu_milli, 5) << containers.out;
  EXPECT_GE(spin->memory_mi, 24) << containers.out;
  EXPECT_LE(idle->memory_mi, 8) << containers.out;

  const CommandResult none = ns_.kubectl("top pod -l app=nothing");
  EXPECT_NE(none.err.find("No resources found"), std::string::npos) << none.out << none.err;
}

TEST_F(KubectlTop, NodeShowsAtLeastItsPods) {
  const CommandResult nodes = E2eCluster::get().kubectl("top node");
  ASSERT_EQ(nodes.exit_code, 0) << nodes.err;
  const auto node = row_of(nodes.out, "tailor-node-2");
  ASSERT_TRUE(node) << nodes.out;
  EXPECT_GE(node->cpu_milli, 20) << nodes.out;
  EXPECT_GE(node->memory_mi, 24) << nodes.out;
  EXPECT_TRUE(row_of(nodes.out, "tailor-node-1")) << nodes.out;
}

TEST_F(KubectlTop, UnknownPodIsNotFound) {
  const CommandResult missing = ns_.kubectl("top pod nosuchpod");
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_NE(missing.err.find(R"(pods "nosuchpod" not found)"), std::string::npos) << missing.err;
}

}  // namespace
}  // namespace tailor::e2e
