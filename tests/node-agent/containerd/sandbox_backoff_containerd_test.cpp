// A pod whose sandbox the real containerd cannot run (a 1n memory limit: the pod cgroup holds one
// page, too little for the pause process) is retried at the back-off's pace, not on every sync of
// the node loop (5 a second here), and its containers wait in ContainerCreating saying why.
#include <gtest/gtest.h>

#include "kube/observe/metrics.h"
#include "node-agent/allocation/node_agent_metrics.h"
#include "tests/node-agent/containerd/embedded_node.h"

namespace tailor::node::testing {
namespace {
namespace bj = boost::json;

class SandboxBackoffOnContainerd : public EmbeddedNode {
 protected:
  // RunPodSandbox calls counted by the agent's own CRI instrumentation (each one fails here).
  cri::RuntimeService& pod_runtime_service() override {
    counted_ = allocation::instrument(
        cri::connect_runtime_service({socket_, std::chrono::seconds(10), std::chrono::seconds(60)}),
        metrics_);
    return *counted_;
  }
  double sandbox_runs() const { return metrics_.cri_errors("run_podsandbox"); }

  kube::metrics::Registry registry_;
  allocation::NodeAgentMetrics metrics_{registry_};
  std::unique_ptr<cri::RuntimeService> counted_;
};

TEST_F(SandboxBackoffOnContainerd, FailingSandboxIsRetriedAtTheBackoffsPace) {
  create_pod("tiny", R"([{"name":"app","image":"busybox","command":["sleep","3600"],
      "resources":{"limits":{"cpu":"100m","memory":"1n"}}}])");
  const bj::value pod = wait_for_pod("tiny", [](const bj::value& p) {
    const auto* s = first_container_status(p);
    return s &&
           field(*s, {"state", "waiting", "message"}).starts_with("Failed to create pod sandbox");
  });
  EXPECT_EQ(field(*first_container_status(pod), {"state", "waiting", "reason"}),
            "ContainerCreating");
  const double first = sandbox_runs();
  ASSERT_GE(first, 1.0);
  // The fixture's back-off is 1 s doubling to 4 s: after a failure, tries are due 1, 3, 7 and 11 s
  // later, so no more than 4 follow within 12 s (about 60 syncs).
  std::this_thread::sleep_for(std::chrono::seconds(12));
  const double tries = sandbox_runs() - first;
  EXPECT_LE(tries, 4.0);
  EXPECT_GE(tries, 1.0);  // and it is retried
  delete_pod("tiny");
}

}  // namespace
}  // namespace tailor::node::testing
