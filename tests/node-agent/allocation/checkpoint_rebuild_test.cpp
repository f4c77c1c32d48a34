#include "node-agent/allocation/checkpoint_rebuild.h"

#include <gtest/gtest.h>

#include "node-agent/allocation/allocation_state.h"
#include "node-agent/allocation/resize_manager.h"
#include "node-agent/cri/cgroup_values.h"
#include "tests/node-agent/allocation/resize_manager_fakes.h"

namespace tailor::node::allocation {
namespace {

using testing::container;
using testing::make_pod;
using testing::resized;
using testing::Resources;

// What the runtime applies for these amounts (as the pod runtime starts a container).
cri::LinuxResources applied(const Resources& r) {
  kube::ResourceRequirements req = container("x", r).resources;
  return cri::to_linux_resources(cri::container_cgroup_values(amounts_of(req)));
}

kube::ResourceRequirements resources(const Resources& r) { return container("x", r).resources; }

kube::ResourceList list(const std::string& cpu, const std::string& memory) {
  kube::ResourceList out;
  if (!cpu.empty()) out.insert_or_assign("cpu", kube::Quantity::parse(cpu));
  if (!memory.empty()) out.insert_or_assign("memory", kube::Quantity::parse(memory));
  return out;
}

// The status the agent wrote for an allocation: allocatedResources and resources.
void report(kube::Pod& pod, const std::string& name, const Resources& r) {
  for (kube::ContainerStatus& s : pod.status.container_statuses) {
    if (s.name != name) continue;
    s.allocated_resources = resources(r).requests;
    s.resources = resources(r);
  }
}

struct RebuildCase {
  std::string name;
  Resources spec;                     // what the pod asks for now
  std::optional<Resources> reported;  // what the status says was allocated
  std::optional<Resources> running;   // what the runtime applied (absent: not running)
  Resources expected;
  RebuildSource source;
};

// gtest prints the name, not the bytes (ctest's test names stay stable).
void PrintTo(const RebuildCase& value, std::ostream* out) { *out << value.name; }

class RebuildTable : public ::testing::TestWithParam<RebuildCase> {};

TEST_P(RebuildTable, EachValueComesFromTheBestWitness) {
  const RebuildCase& c = GetParam();
  kube::Pod pod = make_pod("web", {container("app", c.spec)});
  if (c.reported) report(pod, "app", *c.reported);
  PodRuntimeView view;
  if (c.running) view["app"] = applied(*c.running);
  const RebuiltPod rebuilt = rebuild_allocation(pod, c.running ? &view : nullptr);
  ASSERT_EQ(rebuilt.allocation.containers.size(), 1u);
  EXPECT_EQ(rebuilt.allocation.containers[0].resources, resources(c.expected));
  EXPECT_EQ(rebuilt.sources.at("app"), c.source);
  EXPECT_FALSE(rebuilt.allocation.resize_in_progress);
  EXPECT_EQ(rebuilt.allocation.uid, pod.metadata.uid);
}

INSTANTIATE_TEST_SUITE_P(
    Witnesses, RebuildTable,
    ::testing::Values(
        // Running, no status yet: the runtime's values; the memory request is the spec's.
        RebuildCase{"RunningNoStatus",
                    {"250m", "500m", "128Mi", "256Mi"},
                    std::nullopt,
                    Resources{"250m", "500m", "128Mi", "256Mi"},
                    {"250m", "500m", "128Mi", "256Mi"},
                    RebuildSource::Runtime},
        // A Deferred resize: the spec asks for more; what runs and the status say what was
        // allocated, and that is what is rebuilt (not the spec).
        RebuildCase{"DeferredResize",
                    {"1", "1", "512Mi", "512Mi"},
                    Resources{"250m", "500m", "128Mi", "256Mi"},
                    Resources{"250m", "500m", "128Mi", "256Mi"},
                    {"250m", "500m", "128Mi", "256Mi"},
                    RebuildSource::Runtime},
        // A resize in flight when the record was lost: memory (applied first) is done, CPU not
        // yet; allocated = actual, and the CPU part is decided again.
        RebuildCase{"HalfActuated",
                    {"1", "1", "512Mi", "512Mi"},
                    Resources{"1", "1", "512Mi", "512Mi"},
                    Resources{"250m", "500m", "512Mi", "512Mi"},
                    {"250m", "500m", "512Mi", "512Mi"},
                    RebuildSource::Runtime},
        // The status's memory request is never above the memory limit that runs.
        RebuildCase{"MemoryRequestCappedByTheLimitThatRuns",
                    {"1", "1", "512Mi", "512Mi"},
                    Resources{"1", "1", "512Mi", "512Mi"},
                    Resources{"1", "1", "256Mi", "256Mi"},
                    {"1", "1", "256Mi", "256Mi"},
                    RebuildSource::Runtime},
        // Not running (crashed, restarting): the status the agent wrote.
        RebuildCase{"ExitedContainer",
                    {"1", "1", "512Mi", "512Mi"},
                    Resources{"300m", "600m", "100Mi", "200Mi"},
                    std::nullopt,
                    {"300m", "600m", "100Mi", "200Mi"},
                    RebuildSource::Status},
        // Which values exist is the spec's: no limit appears, none is dropped.
        RebuildCase{"RequestsOnly",
                    {"200m", "", "64Mi", ""},
                    std::nullopt,
                    Resources{"100m", "", "64Mi", ""},
                    {"100m", "", "64Mi", ""},
                    RebuildSource::Runtime},
        RebuildCase{"BestEffort",
                    {"", "", "", ""},
                    std::nullopt,
                    Resources{"", "", "", ""},
                    {"", "", "", ""},
                    RebuildSource::Runtime},
        // Below what shares can show (2 shares = 1m and 2m): the allocation known before wins.
        RebuildCase{"TinyCpuRequest",
                    {"1m", "", "", ""},
                    Resources{"1m", "", "", ""},
                    Resources{"1m", "", "", ""},
                    {"1m", "", "", ""},
                    RebuildSource::Runtime}),
    [](const auto& info) { return info.param.name; });

TEST(CheckpointRebuild, OnlyPodsThatRanHereAndTheCheckpointLacksAreRebuilt) {
  kube::Pod recorded = make_pod("recorded", {container("app", {"100m", "", "", ""})});
  kube::Pod lost = make_pod("lost", {container("app", {"1", "", "", ""})});
  kube::Pod reported = make_pod("reported", {container("app", {"300m", "", "", ""})});
  report(reported, "app", {"200m", "", "", ""});
  kube::Pod fresh = make_pod("fresh", {container("app", {"100m", "", "", ""})});
  kube::Pod done = make_pod("done", {container("app", {"100m", "", "", ""})});
  done.status.phase = "Succeeded";
  Checkpoint known;
  known.pods[recorded.metadata.uid] = desired_allocation(recorded);
  known.pods[recorded.metadata.uid].containers[0].resources = resources({"50m", "", "", ""});
  NodeRuntimeView runtime;
  runtime[lost.metadata.uid]["app"] = applied({"400m", "", "", ""});
  runtime[recorded.metadata.uid]["app"] = applied({"100m", "", "", ""});
  runtime[done.metadata.uid]["app"] = applied({"100m", "", "", ""});

  const RebuildResult result =
      rebuild_allocations(known, {recorded, lost, reported, fresh, done}, runtime);
  ASSERT_EQ(result.rebuilt.size(), 2u);
  EXPECT_EQ(result.rebuilt[0].allocation.uid, lost.metadata.uid);
  EXPECT_EQ(result.rebuilt[1].allocation.uid, reported.metadata.uid);
  // The record is kept as it is, even where the runtime differs (a resize it resumes).
  EXPECT_EQ(result.checkpoint.pods.at(recorded.metadata.uid), known.pods.at(recorded.metadata.uid));
  EXPECT_EQ(result.checkpoint.pods.at(lost.metadata.uid).containers[0].resources,
            resources({"400m", "", "", ""}));
  EXPECT_EQ(result.checkpoint.pods.at(reported.metadata.uid).containers[0].resources,
            resources({"200m", "", "", ""}));
  EXPECT_FALSE(result.checkpoint.pods.contains(fresh.metadata.uid));  // admitted as new
  EXPECT_FALSE(result.checkpoint.pods.contains(done.metadata.uid));
  EXPECT_EQ(describe_sources(result.rebuilt[0]), "app=runtime");
  EXPECT_EQ(describe_sources(result.rebuilt[1]), "app=status");
}

TEST(CheckpointRebuild, SidecarsAreRebuiltAndOtherInitContainersAreNot) {
  kube::Container sidecar = container("proxy", {"100m", "100m", "32Mi", "32Mi"});
  sidecar.restart_policy = "Always";
  kube::Pod pod = make_pod("web", {container("app", {"200m", "", "", ""})});
  pod.spec.init_containers = {container("setup", {"1", "", "", ""}), sidecar};
  PodRuntimeView view;
  view["app"] = applied({"200m", "", "", ""});
  view["proxy"] = applied({"150m", "150m", "32Mi", "48Mi"});
  const RebuiltPod rebuilt = rebuild_allocation(pod, &view);
  ASSERT_EQ(rebuilt.allocation.init_containers.size(), 1u);
  EXPECT_EQ(rebuilt.allocation.init_containers[0].name, "proxy");
  EXPECT_EQ(rebuilt.allocation.init_containers[0].resources,
            resources({"150m", "150m", "32Mi", "48Mi"}));
}

// The finding: the agent restarted without its checkpoint and re-admitted a running pod with the
// resources its Deferred resize asks for; it did not fit, and the pod was failed (OutOfcpu)
// while its containers ran. With the rebuilt allocation it stays admitted and Deferred.
class RebuiltRestore : public ::testing::Test {
 protected:
  RebuiltRestore() {
    ResizeManagerOptions options;
    options.node_allocatable = list("2", "2Gi");
    options.now = [] { return kube::parse_rfc3339("2026-01-01T00:00:10Z"); };
    manager_ =
        std::make_unique<ResizeManager>(options, runtime_, status_, events_, checkpoint_, metrics_);
    report(other_, "app", {"1500m", "", "", ""});
    report(web_, "app", {"250m", "250m", "", ""});
    runtime_view_[other_.metadata.uid]["app"] = applied({"1500m", "", "", ""});
    runtime_view_[web_.metadata.uid]["app"] = applied({"250m", "250m", "", ""});
  }

  class Runtime : public PodResourcesRuntime {
   public:
    RuntimeReport read(const kube::Pod&, const AllocatedPod&) override { return {}; }
    ActuationReport actuate(const kube::Pod&, const AllocatedPod&) override {
      ++actuations;
      return {};
    }
    int actuations = 0;
  };

  kube::Pod other_ = make_pod("other", {container("app", {"1500m", "", "", ""})});
  // Resized from 250m to 1 while 1500m of 2 CPUs are taken: Deferred.
  kube::Pod web_ = resized(make_pod("web", {container("app", {"250m", "250m", "", ""})}), "app",
                           {"1", "1", "", ""});
  NodeRuntimeView runtime_view_;
  Runtime runtime_;
  testing::FakeStatus status_;
  testing::FakeEvents events_;
  testing::FakeCheckpoint checkpoint_;
  kube::metrics::Registry registry_;
  NodeAgentMetrics metrics_{registry_};
  std::unique_ptr<ResizeManager> manager_;
};

TEST_F(RebuiltRestore, WithoutARebuildTheRunningPodWasFailed) {
  manager_->restore(Checkpoint{}, {other_, web_});  // what the agent did before
  EXPECT_TRUE(status_.rejected.contains(web_.metadata.uid));
}

TEST_F(RebuiltRestore, ARebuiltPodWithADeferredResizeKeepsRunningAndStaysDeferred) {
  const RebuildResult rebuilt = rebuild_allocations({}, {other_, web_}, runtime_view_);
  manager_->restore(rebuilt.checkpoint, {other_, web_});
  EXPECT_TRUE(status_.rejected.empty()) << status_.rejected.begin()->second;
  EXPECT_EQ(manager_->allocation(web_.metadata.uid)->containers[0].resources,
            resources({"250m", "250m", "", ""}));
  const kube::PodCondition* pending = status_.condition(web_.metadata.uid, kube::kPodResizePending);
  ASSERT_NE(pending, nullptr);
  EXPECT_EQ(pending->reason, "Deferred");
  EXPECT_EQ(pending->message,
            "Node didn't have enough resource: cpu, requested: 1000, used: 1500, capacity: 2000");
  EXPECT_EQ(runtime_.actuations, 0);  // nothing was accepted, nothing changed in the runtime
  EXPECT_EQ(manager_->pending(), std::vector<std::string>{web_.metadata.uid});
}

TEST_F(RebuiltRestore, ARebuiltResizeThatNowFitsIsAccepted) {
  const RebuildResult rebuilt = rebuild_allocations({}, {web_}, runtime_view_);  // other is gone
  manager_->restore(rebuilt.checkpoint, {web_});
  EXPECT_TRUE(status_.rejected.empty());
  EXPECT_EQ(manager_->allocation(web_.metadata.uid)->containers,
            desired_allocation(web_).containers);
  EXPECT_EQ(runtime_.actuations, 1);
}

}  // namespace
}  // namespace tailor::node::allocation
