#include "node-agent/allocation/node_agent_metrics.h"

#include <gtest/gtest.h>

namespace tailor::node::allocation {
namespace {

class FailingRuntime : public cri::RuntimeService {
 public:
  cri::RuntimeVersion version() override { return {"0.1.0", "fake", "1", "v1"}; }
  std::string run_pod_sandbox(const cri::PodSandboxSpec&) override { return "s"; }
  void stop_pod_sandbox(const std::string&) override {}
  void remove_pod_sandbox(const std::string&) override {}
  cri::SandboxStatus pod_sandbox_status(const std::string&) override { return {}; }
  std::int32_t exec_sync(const std::string&, const std::vector<std::string>&,
                         std::chrono::seconds) override {
    return 0;
  }
  std::vector<cri::SandboxStatus> list_pod_sandboxes(
      const std::map<std::string, std::string>&) override {
    return {};
  }
  std::string create_container(const std::string&, const cri::ContainerSpec&,
                               const cri::PodSandboxSpec&) override {
    return "c";
  }
  void start_container(const std::string&) override {}
  void stop_container(const std::string&, std::int64_t) override {}
  void remove_container(const std::string&) override {}
  std::vector<cri::ContainerSummary> list_containers(const cri::ContainerFilter&) override {
    return {};
  }
  cri::ContainerStatus container_status(const std::string&) override { return {}; }
  void update_container_resources(const std::string& id, const cri::LinuxResources&) override {
    throw cri::CriError(cri::CriErrorKind::Timeout, "UpdateContainerResources",
                        "deadline exceeded " + id);
  }
  cri::SandboxUpdateOutcome update_pod_sandbox_resources(const std::string&,
                                                         const cri::LinuxResources&) override {
    return cri::SandboxUpdateOutcome::NotSupported;
  }
};

TEST(NodeAgentMetrics, CriCallsAreTimedAndErrorsCounted) {
  kube::metrics::Registry registry;
  NodeAgentMetrics metrics(registry);
  auto runtime = instrument(std::make_unique<FailingRuntime>(), metrics);
  EXPECT_EQ(runtime->version().runtime_name, "fake");
  EXPECT_THROW(runtime->update_container_resources("c1", {}), cri::CriError);
  EXPECT_EQ(metrics.cri_errors("container_update"), 1);
  EXPECT_EQ(metrics.cri_errors("version"), 0);
  const std::string text = registry.serialize();
  EXPECT_NE(text.find("tailor_node_cri_operation_duration_seconds_count{operation=\"version\"} 1"),
            std::string::npos)
      << text;
  EXPECT_NE(
      text.find(
          "tailor_node_cri_operation_duration_seconds_count{operation=\"container_update\"} 1"),
      std::string::npos)
      << text;
}

TEST(NodeAgentMetrics, EveryResizeStateIsExportedFromTheStart) {
  kube::metrics::Registry registry;
  NodeAgentMetrics metrics(registry);
  const std::string text = registry.serialize();
  for (const char* state : {"proposed", "infeasible", "deferred", "completed", "canceled"}) {
    EXPECT_NE(
        text.find(std::string("tailor_node_resize_requests_total{state=\"") + state + "\"} 0"),
        std::string::npos)
        << state;
  }
  metrics.resize(ResizeState::Proposed);
  EXPECT_EQ(metrics.resize_count(ResizeState::Proposed), 1);
}

TEST(NodeAgentMetrics, RebuiltAllocationsAreCountedByReason) {
  kube::metrics::Registry registry;
  NodeAgentMetrics metrics(registry);
  metrics.allocations_rebuilt("CheckpointCorrupt", 3);
  metrics.allocations_rebuilt("CheckpointCorrupt", 0);  // a corrupt file on an empty node
  EXPECT_EQ(metrics.rebuilt_allocations("CheckpointCorrupt"), 3);
  EXPECT_NE(registry.serialize().find(
                "tailor_node_rebuilt_allocations_total{reason=\"CheckpointCorrupt\"} 3"),
            std::string::npos)
      << registry.serialize();
}

}  // namespace
}  // namespace tailor::node::allocation
