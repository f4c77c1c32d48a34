#include "node-agent/allocation/resize_manager.h"

#include <gtest/gtest.h>

#include <map>

#include "node-agent/allocation/allocation_state.h"
#include "tests/node-agent/allocation/resize_manager_fakes.h"

namespace tailor::node::allocation {
namespace {

using namespace std::chrono_literals;
using testing::container;
using testing::FakeCheckpoint;
using testing::FakeEvents;
using testing::FakeStatus;
using testing::make_pod;
using testing::resized;

class FakeRuntime : public PodResourcesRuntime {
 public:
  RuntimeReport read(const kube::Pod& pod, const AllocatedPod&) override {
    return report(pod.metadata.uid);
  }
  ActuationReport actuate(const kube::Pod& pod, const AllocatedPod& allocation) override {
    ++actuations;
    ActuationReport out;
    if (error) {
      out.error = *error;
    } else {
      applied[pod.metadata.uid] = allocation;
    }
    out.runtime = report(pod.metadata.uid);
    out.runtime.matches_allocation = !error;
    return out;
  }
  RuntimeReport report(const std::string& uid) {
    RuntimeReport out;
    auto it = applied.find(uid);
    if (it == applied.end()) return out;
    for (const AllocatedContainer& c : it->second.containers) {
      out.actual[c.name] = requirements_of(amounts_of(c.resources));
    }
    return out;
  }
  std::map<std::string, AllocatedPod> applied;
  std::optional<std::string> error;
  int actuations = 0;
};

class ResizeManagerTest : public ::testing::Test {
 protected:
  ResizeManagerTest() { reset_manager(); }

  void reset_manager() {
    ResizeManagerOptions options;
    options.node_allocatable = {{"cpu", kube::Quantity::parse("2")},
                                {"memory", kube::Quantity::parse("2Gi")}};
    options.now = [this] { return clock_; };
    manager_ =
        std::make_unique<ResizeManager>(options, runtime_, status_, events_, checkpoint_, metrics_);
  }

  const kube::ContainerStatus& status_of(const kube::Pod& pod, const std::string& name) {
    return *kube::find_container_status(status_.pods.at(pod.metadata.uid).status, name);
  }
  double count(ResizeState state) const { return metrics_.resize_count(state); }

  kube::TimePoint clock_ = kube::parse_rfc3339("2026-01-01T00:00:10Z");
  FakeRuntime runtime_;
  FakeStatus status_;
  FakeEvents events_;
  FakeCheckpoint checkpoint_;
  kube::metrics::Registry registry_;
  NodeAgentMetrics metrics_{registry_};
  std::unique_ptr<ResizeManager> manager_;
};

TEST_F(ResizeManagerTest, NewPodIsAdmittedCheckpointedAndReported) {
  const kube::Pod pod = make_pod("web", {container("app", {"500m", "1", "128Mi", "256Mi"})});
  manager_->sync_pod(pod);
  ASSERT_TRUE(manager_->allocation(pod.metadata.uid));
  EXPECT_EQ(checkpoint_.saved.pods.at(pod.metadata.uid).containers,
            desired_allocation(pod).containers);
  EXPECT_EQ(status_of(pod, "app").allocated_resources,
            (kube::ResourceList{{"cpu", kube::Quantity::parse("500m")},
                                {"memory", kube::Quantity::parse("128Mi")}}));
  EXPECT_EQ(status_.pods.at(pod.metadata.uid).status.observed_generation, 1);
  EXPECT_EQ(runtime_.actuations, 0);  // nothing to resize
}

TEST_F(ResizeManagerTest, PodThatDoesNotFitIsRejected) {
  manager_->sync_pod(make_pod("big", {container("app", {"1500m", "", "", ""})}));
  manager_->sync_pod(make_pod("second", {container("app", {"1", "", "", ""})}));
  EXPECT_FALSE(manager_->allocation("uid-second"));
  EXPECT_EQ(status_.rejected.at("uid-second"),
            "OutOfcpu: Pod was rejected: Node didn't have enough resource: cpu, requested: 1000, "
            "used: 1500, capacity: 2000");
}

TEST_F(ResizeManagerTest, AcceptedResizeIsActuatedAndCompleted) {
  const kube::Pod pod = make_pod("web", {container("app", {"500m", "500m", "128Mi", "128Mi"})});
  manager_->sync_pod(pod);
  const kube::Pod bigger = resized(pod, "app", {"1", "1", "256Mi", "256Mi"});
  manager_->sync_pod(bigger);
  const AllocatedPod allocation = *manager_->allocation(pod.metadata.uid);
  EXPECT_FALSE(allocation.resize_in_progress);
  EXPECT_EQ(allocation.containers, desired_allocation(bigger).containers);
  EXPECT_EQ(runtime_.applied.at(pod.metadata.uid).containers, allocation.containers);
  EXPECT_EQ(status_.condition(pod.metadata.uid, kube::kPodResizeInProgress), nullptr);
  EXPECT_EQ(status_.condition(pod.metadata.uid, kube::kPodResizePending), nullptr);
  EXPECT_EQ(status_of(pod, "app").resources, cpu_and_memory(bigger.spec.containers[0].resources));
  EXPECT_EQ(events_.reasons, (std::vector<std::string>{"ResizeStarted", "ResizeCompleted"}));
  EXPECT_EQ(count(ResizeState::Proposed), 1);
  EXPECT_EQ(count(ResizeState::Completed), 1);
  EXPECT_FALSE(checkpoint_.saved.pods.at(pod.metadata.uid).resize_in_progress);
}

TEST_F(ResizeManagerTest, DeferredResizeIsAcceptedWhenAnotherPodIsRemoved) {
  const kube::Pod a = make_pod("a", {container("app", {"1", "", "", ""})});
  const kube::Pod b = make_pod("b", {container("app", {"500m", "", "", ""})});
  manager_->sync_pod(a);
  manager_->sync_pod(b);
  const kube::Pod b2 = resized(b, "app", {"1500m", "", "", ""});
  manager_->sync_pod(b2);
  const kube::PodCondition* pending = status_.condition(b.metadata.uid, kube::kPodResizePending);
  ASSERT_NE(pending, nullptr);
  EXPECT_EQ(pending->reason, "Deferred");
  EXPECT_EQ(pending->message,
            "Node didn't have enough resource: cpu, requested: 1500, used: 1000, capacity: 2000");
  EXPECT_EQ(pending->observed_generation, 2);
  EXPECT_EQ(manager_->pending(), std::vector<std::string>{b.metadata.uid});
  EXPECT_EQ(count(ResizeState::Deferred), 1);

  manager_->sync_pod(b2);  // a resync changes nothing
  EXPECT_EQ(count(ResizeState::Deferred), 1);

  manager_->remove_pod(a.metadata.uid);
  EXPECT_EQ(status_.condition(b.metadata.uid, kube::kPodResizePending), nullptr);
  EXPECT_EQ(manager_->allocation(b.metadata.uid)->containers, desired_allocation(b2).containers);
  EXPECT_TRUE(manager_->pending().empty());
  EXPECT_EQ(events_.reasons,
            (std::vector<std::string>{"ResizeDeferred", "ResizeStarted", "ResizeCompleted"}));
  EXPECT_EQ(count(ResizeState::Completed), 1);
  EXPECT_EQ(
      registry_.serialize().find(
          "tailor_node_pod_deferred_accepted_resizes_total{retry_trigger=\"pod_removed\"} 1") !=
          std::string::npos,
      true)
      << registry_.serialize();
}

TEST_F(ResizeManagerTest, DeferredResizeIsAcceptedWhenAnotherPodShrinks) {
  const kube::Pod a = make_pod("a", {container("app", {"1", "", "", ""})});
  const kube::Pod b = make_pod("b", {container("app", {"500m", "", "", ""})});
  manager_->sync_pod(a);
  manager_->sync_pod(b);
  manager_->sync_pod(resized(b, "app", {"1500m", "", "", ""}));
  ASSERT_EQ(manager_->pending().size(), 1u);
  manager_->sync_pod(resized(a, "app", {"500m", "", "", ""}));
  EXPECT_TRUE(manager_->pending().empty());
  EXPECT_EQ(manager_->allocation(b.metadata.uid)->containers[0].resources.requests.at("cpu"),
            kube::Quantity::parse("1500m"));
}

TEST_F(ResizeManagerTest, InfeasibleIsFinalUntilTheSpecChanges) {
  const kube::Pod pod = make_pod("web", {container("app", {"500m", "", "", ""})});
  manager_->sync_pod(pod);
  const kube::Pod huge = resized(pod, "app", {"3", "", "", ""});
  manager_->sync_pod(huge);
  const kube::PodCondition* pending = status_.condition(pod.metadata.uid, kube::kPodResizePending);
  ASSERT_NE(pending, nullptr);
  EXPECT_EQ(pending->reason, "Infeasible");
  EXPECT_EQ(pending->message,
            "Node didn't have enough capacity: cpu, requested: 3000, capacity: 2000");
  EXPECT_TRUE(manager_->pending().empty());  // never retried
  manager_->retry_pending(RetryTrigger::Periodic);
  manager_->sync_pod(huge);
  EXPECT_EQ(count(ResizeState::Infeasible), 1);
  EXPECT_EQ(count(ResizeState::Proposed), 1);

  manager_->sync_pod(resized(huge, "app", {"1", "", "", ""}));
  EXPECT_EQ(status_.condition(pod.metadata.uid, kube::kPodResizePending), nullptr);
  EXPECT_EQ(count(ResizeState::Proposed), 2);
  EXPECT_EQ(count(ResizeState::Completed), 1);
  // steady state: proposed = infeasible + completed + canceled
  EXPECT_EQ(count(ResizeState::Proposed), count(ResizeState::Infeasible) +
                                              count(ResizeState::Completed) +
                                              count(ResizeState::Canceled));
}

TEST_F(ResizeManagerTest, RevertedDeferredResizeIsCanceled) {
  const kube::Pod a = make_pod("a", {container("app", {"1500m", "", "", ""})});
  const kube::Pod b = make_pod("b", {container("app", {"500m", "", "", ""})});
  manager_->sync_pod(a);
  manager_->sync_pod(b);
  kube::Pod b2 = resized(b, "app", {"1", "", "", ""});
  manager_->sync_pod(b2);
  ASSERT_NE(status_.condition(b.metadata.uid, kube::kPodResizePending), nullptr);
  kube::Pod b3 = resized(b2, "app", {"500m", "", "", ""});
  manager_->sync_pod(b3);
  EXPECT_EQ(status_.condition(b.metadata.uid, kube::kPodResizePending), nullptr);
  EXPECT_EQ(count(ResizeState::Canceled), 1);
  EXPECT_EQ(count(ResizeState::Proposed), 1);
}

TEST_F(ResizeManagerTest, ActuationErrorIsReportedAndRetriedWithBackoff) {
  const kube::Pod pod = make_pod("web", {container("app", {"500m", "500m", "256Mi", "256Mi"})});
  manager_->sync_pod(pod);
  runtime_.error = "container app: memory limit (134217728) below current usage (200000000)";
  manager_->sync_pod(resized(pod, "app", {"500m", "500m", "128Mi", "128Mi"}));
  const kube::PodCondition* in_progress =
      status_.condition(pod.metadata.uid, kube::kPodResizeInProgress);
  ASSERT_NE(in_progress, nullptr);
  EXPECT_EQ(in_progress->reason, "Error");
  EXPECT_EQ(in_progress->message, *runtime_.error);
  EXPECT_EQ(in_progress->observed_generation, 2);
  EXPECT_TRUE(checkpoint_.saved.pods.at(pod.metadata.uid).resize_in_progress);

  const int before = runtime_.actuations;
  EXPECT_EQ(manager_->retry_failed(), clock_ + 500ms);  // not yet due
  EXPECT_EQ(runtime_.actuations, before);
  clock_ += 500ms;
  runtime_.error = "container app: memory limit (134217728) below current usage (190000000)";
  EXPECT_EQ(manager_->retry_failed(), clock_ + 1000ms);  // failed again: backoff doubles
  EXPECT_EQ(runtime_.actuations, before + 1);
  // The same refusal with other usage figures is not a new event; the condition follows.
  EXPECT_EQ(std::count(events_.reasons.begin(), events_.reasons.end(), "ResizeError"), 1);
  EXPECT_EQ(status_.condition(pod.metadata.uid, kube::kPodResizeInProgress)->message,
            *runtime_.error);

  runtime_.error.reset();  // usage dropped
  clock_ += 1000ms;
  EXPECT_EQ(manager_->retry_failed(), std::nullopt);
  EXPECT_EQ(status_.condition(pod.metadata.uid, kube::kPodResizeInProgress), nullptr);
  EXPECT_EQ(count(ResizeState::Completed), 1);
}

TEST_F(ResizeManagerTest, FailedCheckpointWriteKeepsTheResizePending) {
  const kube::Pod pod = make_pod("web", {container("app", {"500m", "", "", ""})});
  manager_->sync_pod(pod);
  checkpoint_.fail = true;
  manager_->sync_pod(resized(pod, "app", {"1", "", "", ""}));
  EXPECT_EQ(manager_->allocation(pod.metadata.uid)->containers[0].resources.requests.at("cpu"),
            kube::Quantity::parse("500m"));
  EXPECT_EQ(runtime_.actuations, 0);
  ASSERT_NE(status_.condition(pod.metadata.uid, kube::kPodResizePending), nullptr);
  EXPECT_EQ(metrics_.checkpoint_errors("io"), 1);
  checkpoint_.fail = false;
  manager_->retry_pending(RetryTrigger::Periodic);
  EXPECT_EQ(manager_->allocation(pod.metadata.uid)->containers[0].resources.requests.at("cpu"),
            kube::Quantity::parse("1"));
}

TEST_F(ResizeManagerTest, RetryOrderPrefersHigherPriority) {
  const kube::Pod a = make_pod("a", {container("app", {"1", "", "", ""})});
  const kube::Pod low = make_pod("low", {container("app", {"250m", "", "", ""})}, 0);
  const kube::Pod high = make_pod("high", {container("app", {"250m", "", "", ""})}, 100);
  for (const kube::Pod* p : {&a, &low, &high}) manager_->sync_pod(*p);
  manager_->sync_pod(resized(low, "app", {"1200m", "", "", ""}));
  clock_ += 1s;
  manager_->sync_pod(resized(high, "app", {"1200m", "", "", ""}));
  EXPECT_EQ(manager_->pending(), (std::vector<std::string>{high.metadata.uid, low.metadata.uid}));
  manager_->remove_pod(a.metadata.uid);  // room for one of them
  EXPECT_EQ(manager_->pending(), std::vector<std::string>{low.metadata.uid});
  EXPECT_EQ(manager_->allocation(high.metadata.uid)->containers[0].resources.requests.at("cpu"),
            kube::Quantity::parse("1200m"));
}

TEST_F(ResizeManagerTest, RestartResumesTheResizeInFlight) {
  const kube::Pod a = make_pod("a", {container("app", {"500m", "500m", "", ""}),
                                     container("side", {"250m", "250m", "", ""})});
  manager_->sync_pod(a);
  runtime_.error = "runtime hung";
  const kube::Pod a2 = resized(a, "app", {"1", "1", "", ""});
  manager_->sync_pod(a2);
  ASSERT_TRUE(checkpoint_.saved.pods.at(a.metadata.uid).resize_in_progress);
  const Checkpoint saved = checkpoint_.saved;

  runtime_.error.reset();
  events_.reasons.clear();
  reset_manager();  // the agent restarts
  kube::Pod gone = make_pod("gone", {container("app", {"100m", "", "", ""})});
  Checkpoint with_gone = saved;
  with_gone.pods[gone.metadata.uid] = desired_allocation(gone);
  manager_->restore(with_gone, {a2});
  EXPECT_FALSE(manager_->allocation(gone.metadata.uid));  // deleted while away
  EXPECT_FALSE(manager_->allocation(a.metadata.uid)->resize_in_progress);
  EXPECT_EQ(runtime_.applied.at(a.metadata.uid).containers, desired_allocation(a2).containers);
  EXPECT_EQ(events_.reasons, std::vector<std::string>{"ResizeCompleted"});
  EXPECT_EQ(checkpoint_.saved.pods.size(), 1u);
}

// After a restart the checkpointed allocations are admitted first: a pod created while the agent
// was away cannot take the room of an admitted pod's allocation.
TEST_F(ResizeManagerTest, RestartAdmitsCheckpointedPodsBeforeNewOnes) {
  const kube::Pod old_pod = make_pod("old", {container("app", {"1500m", "", "", ""})});
  kube::Pod newer = make_pod("newer", {container("app", {"1", "", "", ""})});
  newer.metadata.creation_timestamp = "2025-01-01T00:00:00Z";  // even if created earlier
  Checkpoint checkpoint;
  checkpoint.pods[old_pod.metadata.uid] = desired_allocation(old_pod);
  manager_->restore(checkpoint, {newer, old_pod});
  EXPECT_TRUE(manager_->allocation(old_pod.metadata.uid));
  EXPECT_FALSE(manager_->allocation(newer.metadata.uid));
  EXPECT_TRUE(status_.rejected.contains(newer.metadata.uid));
}

TEST_F(ResizeManagerTest, ThreeContainerResizeIsOneAtomicRequest) {
  kube::Pod pod =
      make_pod("three", {container("a", {"200m", "", "", ""}), container("b", {"200m", "", "", ""}),
                         container("c", {"200m", "", "", ""})});
  manager_->sync_pod(make_pod("other", {container("x", {"1", "", "", ""})}));
  manager_->sync_pod(pod);
  kube::Pod next = pod;
  next.spec.containers[0].resources = container("a", {"100m", "", "", ""}).resources;
  next.spec.containers[1].resources = container("b", {"300m", "", "", ""}).resources;
  next.spec.containers[2].resources = container("c", {"1", "", "", ""}).resources;
  ++next.metadata.generation;
  manager_->sync_pod(next);  // 1400m > 1000m free: nothing of it is allocated
  EXPECT_EQ(manager_->allocation(pod.metadata.uid)->containers, desired_allocation(pod).containers);
  EXPECT_EQ(count(ResizeState::Proposed), 1);
  EXPECT_EQ(registry_.serialize().find(
                "tailor_node_container_requested_resizes_total{operation="
                "\"decrease\",requirement=\"requests\",resource=\"cpu\"} 1") != std::string::npos,
            true)
      << registry_.serialize();
}

TEST_F(ResizeManagerTest, AbsurdQuantitiesAreInfeasibleNotACrash) {
  const kube::Pod pod = make_pod("web", {container("app", {"500m", "", "", ""})});
  manager_->sync_pod(pod);
  manager_->sync_pod(resized(pod, "app", {"100000000000", "", "1000Ei", ""}));
  const kube::PodCondition* pending = status_.condition(pod.metadata.uid, kube::kPodResizePending);
  ASSERT_NE(pending, nullptr);
  EXPECT_EQ(pending->reason, "Infeasible");
  EXPECT_NE(pending->message.find("memory"), std::string::npos) << pending->message;
}

}  // namespace
}  // namespace tailor::node::allocation
