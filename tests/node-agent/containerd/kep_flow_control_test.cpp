// KEP-1287 "Flow Control" (the seed KEP, T=0..T=12) on tailor-cluster, the node agent's resize
// manager and the real containerd, translated to today's API:
// - resizes go through pods/{name}/resize;
// - status.resize is gone: "Proposed" is metadata.generation ahead of status.observedGeneration,
//   "InProgress" is the PodResizeInProgress condition, "Deferred"/"Infeasible" are the reasons of
//   PodResizePending; each condition's observedGeneration names the resize it is about;
// - the T=6 conflict is real: the agent's status patch carries a resourceVersion precondition
//   (a JSON-patch "test" op, which kube-apiserver and tailor-cluster answer with 422, not the
//   KEP's 409) and was built before resize #2 was stored; it is re-read and rebuilt.
// At every step the test reads desired (spec), allocated (status allocatedResources and the
// agent's checkpoint file), actual (status resources; CRI ContainerStatus; the cgroup files of
// the container and the pod) and the conditions, and compares them with the step's row.
//
// Node size: allocatable cpu=4, so 100 CPUs is Infeasible and 2 CPUs fits the node; a neighbour
// pod holds 2.2 CPUs, so resize #2 (2 CPUs) is Deferred while 1.5 and 1.6 fit.
#include <gtest/gtest.h>

#include <optional>
#include <ostream>
#include <span>

#include "kube/model/pod.h"
#include "tests/node-agent/containerd/kep_flow_fixture.h"

namespace tailor::node::testing {
namespace {

constexpr std::int64_t kUnset = -1;

struct Cond {
  std::string reason;
  std::string message;
  std::int64_t observed_generation = 0;
  bool operator==(const Cond&) const = default;
};

// What one step shows; CPU in millicores, kUnset when absent.
struct Observed {
  std::int64_t desired = kUnset;       // spec.containers[0].resources.requests.cpu
  std::int64_t allocated = kUnset;     // status.containerStatuses[0].allocatedResources.cpu
  std::int64_t checkpointed = kUnset;  // the agent's checkpoint file
  bool in_flight = false;              // checkpoint: accepted, not yet confirmed by the runtime
  std::int64_t actual = kUnset;        // status.containerStatuses[0].resources.requests.cpu
  std::int64_t cri_shares = 0;         // CRI ContainerStatus; 0: no container yet
  std::int64_t container_shares = 0;   // the container's cpu.shares file
  std::int64_t pod_shares = 0;         // the pod cgroup's cpu.shares file
  std::optional<Cond> pending;         // PodResizePending
  std::optional<Cond> in_progress;     // PodResizeInProgress
  std::int64_t generation = 0;
  std::int64_t observed_generation = 0;  // status.observedGeneration
  bool operator==(const Observed&) const = default;
};

std::ostream& operator<<(std::ostream& out, const std::optional<Cond>& c) {
  if (!c) return out << "none";
  return out << "{" << c->reason << ", \"" << c->message << "\", gen " << c->observed_generation
             << "}";
}

std::ostream& operator<<(std::ostream& out, const Observed& o) {
  return out << "\n  desired " << o.desired << "m, allocated " << o.allocated << "m, checkpointed "
             << o.checkpointed << "m" << (o.in_flight ? " (in flight)" : "") << ", actual "
             << o.actual << "m\n  shares: CRI " << o.cri_shares << ", container "
             << o.container_shares << ", pod " << o.pod_shares << "\n  PodResizePending "
             << o.pending << ", PodResizeInProgress " << o.in_progress << "\n  generation "
             << o.generation << ", observedGeneration " << o.observed_generation;
}

// One row of the KEP's sequence: the step's label and what it must show.
struct KepStep {
  const char* at;
  std::int64_t desired, allocated, actual;  // the allocation is both in status and checkpoint
  bool in_flight;
  std::int64_t container_shares, pod_shares;  // the CRI reports the container's
  std::optional<Cond> pending, in_progress;
  std::int64_t generation, observed_generation;

  Observed expected() const {
    return {desired,          allocated,  allocated, in_flight,   actual,     container_shares,
            container_shares, pod_shares, pending,   in_progress, generation, observed_generation};
  }
};

const std::string kDeferred =
    "Node didn't have enough resource: cpu, requested: 2000, used: 2200, capacity: 4000";
const std::string kInfeasible =
    "Node didn't have enough capacity: cpu, requested: 100000, capacity: 4000";

// Shares: 1 CPU → 1024, 1.5 → 1536, 1.6 → 1638, 2 → 2048. The pod cgroup is raised before the
// container (KEP ordering), so while a resize is held in the runtime the two differ.
const KepStep kFlow[] = {
    // at      desired  alloc  actual  flight  shares(c, pod)  pending  in_progress  gen obs
    {"T=1", 1000, kUnset, kUnset, false, 0, 0, {}, {}, 1, 0},
    {"T=2", 1000, 1000, 1000, false, 1024, 1024, {}, {}, 1, 1},
    {"T=3", 1500, 1000, 1000, false, 1024, 1024, {}, {}, 2, 1},
    {"T=4", 1500, 1500, 1000, true, 1024, 1536, {}, Cond{"", "", 2}, 2, 2},
    {"T=5", 2000, 1500, 1000, true, 1024, 1536, {}, Cond{"", "", 2}, 3, 2},
    {"T=6", 2000, 1500, 1500, false, 1536, 1536, {}, {}, 3, 2},
    {"T=7", 2000, 1500, 1500, false, 1536, 1536, Cond{"Deferred", kDeferred, 3}, {}, 3, 3},
    {"T=8", 1600, 1500, 1500, false, 1536, 1536, Cond{"Deferred", kDeferred, 3}, {}, 4, 3},
    {"T=9", 1600, 1600, 1500, true, 1536, 1638, {}, Cond{"", "", 4}, 4, 4},
    {"T=10", 1600, 1600, 1600, false, 1638, 1638, {}, {}, 4, 4},
    {"T=11", 100000, 1600, 1600, false, 1638, 1638, {}, {}, 5, 4},
    {"T=12", 100000, 1600, 1600, false, 1638, 1638, Cond{"Infeasible", kInfeasible, 5}, {}, 5, 5},
};

// The KEP (T=4, T=9) and today's kubelet show an acceptance (allocatedResources,
// PodResizeInProgress) before the runtime call; the agent does so too since it publishes the
// acceptance before actuating. False would expect the previous step's status while in flight.
constexpr bool kAgentShowsAcceptanceBeforeActuation = true;

Observed as_the_agent_shows(std::span<const KepStep> flow, const KepStep& s) {
  Observed o = s.expected();
  if (kAgentShowsAcceptanceBeforeActuation || !s.in_flight) return o;
  const KepStep* before = nullptr;  // the last step before the acceptance
  for (const KepStep& row : flow) {
    if (&row == &s) break;
    if (!row.in_flight) before = &row;
  }
  if (before == nullptr) return o;
  o.allocated = before->allocated;
  o.pending = before->pending;
  o.in_progress = before->in_progress;
  o.observed_generation = before->observed_generation;
  return o;
}

const KepStep& step(std::string_view at) {
  for (const KepStep& s : kFlow) {
    if (s.at == at) return s;
  }
  throw std::logic_error("no KEP step " + std::string(at));
}

std::int64_t cpu_of(const kube::ResourceList& list) {
  auto it = list.find(kube::kResourceCpu);
  return it == list.end() ? kUnset : it->second.milli_value();
}

std::optional<Cond> condition(const kube::Pod& pod, std::string_view type) {
  const kube::PodCondition* c = kube::find_condition(pod.status, type);
  if (c == nullptr) return std::nullopt;
  EXPECT_EQ(c->status, "True") << type;
  return Cond{c->reason, c->message, c->observed_generation};
}

class KepFlowControlTest : public KepFlowNode {
 protected:
  kube::ResourceList allocatable() const override {
    return {{"cpu", kube::Quantity::parse("4")}, {"memory", kube::Quantity::parse("2Gi")}};
  }

  Observed observe(const std::string& pod_json) {
    const kube::Pod pod = kube::decode_pod(pod_json);
    Observed o;
    o.desired = cpu_of(pod.spec.containers.at(0).resources.requests);
    if (const kube::ContainerStatus* c = kube::find_container_status(pod.status, "c")) {
      o.allocated = cpu_of(c->allocated_resources);
      if (c->resources) o.actual = cpu_of(c->resources->requests);
    }
    if (const auto checkpoint = store_->load()) {
      if (auto it = checkpoint->pods.find(pod.metadata.uid); it != checkpoint->pods.end()) {
        o.checkpointed = cpu_of(it->second.containers.at(0).resources.requests);
        o.in_flight = it->second.resize_in_progress;
      }
    }
    if (const auto running = pods_->running_pod(pod.metadata.uid)) {
      if (!running->containers.empty()) {
        const std::string& id = running->containers.at(0).id;
        const auto status = cri_->container_status(id);
        o.cri_shares = status.resources ? status.resources->cpu_shares : 0;
        const std::string path =
            cri::container_cgroup_path(running->cgroup_path, id, cri::CgroupDriver::Cgroupfs);
        o.container_shares = cri::CgroupFiles(kV1, path).read().cpu_shares.value_or(0);
      }
      o.pod_shares = cri::CgroupFiles(kV1, running->cgroup_path).read().cpu_shares.value_or(0);
    }
    o.pending = condition(pod, kube::kPodResizePending);
    o.in_progress = condition(pod, kube::kPodResizeInProgress);
    o.generation = pod.metadata.generation;
    o.observed_generation = pod.status.observed_generation;
    return o;
  }

  void expect_at(const KepStep& s, const std::string& pod_json) {
    EXPECT_EQ(observe(pod_json), as_the_agent_shows(kFlow, s)) << s.at;
  }
  void expect_at(const KepStep& s) { expect_at(s, client_->get(ref("kep"))); }

  static std::string version(const std::string& pod_json) {
    return kube::decode_pod(pod_json).metadata.resource_version;
  }

  // The KEP up to T=7, shared by both tests. Leaves resize #2 Deferred.
  void run_until_deferred() {
    create_pod("neighbour", "2200m");
    run_until_running("neighbour");

    // T=0: a new pod is created with requests.cpu=1. T=1: the API server applied its defaults;
    // nothing in status is about resources yet.
    expect_at(step("T=1"), create_pod("kep", "1"));

    // T=2: the agent admits the pod, runs it, and reports allocated and actual.
    run_until_running("kep");
    expect_at(step("T=2"));

    // T=3: resize #1, cpu=1.5, through /resize. "Proposed": generation 2, observed 1.
    const std::string resize1 = resize_cpu("kep", "1.5");
    expect_at(step("T=3"), resize1);

    // T=4: the agent sees resize #1 and accepts it: checkpoint, then (per the KEP; see
    // kAgentShowsAcceptanceBeforeActuation) PodResizeInProgress and allocatedResources, before
    // the runtime applies it. The pod cgroup is raised first; the container update is held here.
    held_->hold();
    status_->clear();
    const std::uint64_t conflicts = rest_status_->conflicts();
    deliver(resize1);
    ASSERT_TRUE(held_->wait_until_held(kKepWait)) << "the agent never called the runtime";
    expect_at(step("T=4"));

    // T=5: resize #2, cpu=2, while #1 is being applied.
    const std::string resize2 = resize_cpu("kep", "2");
    expect_at(step("T=5"), resize2);

    // T=6: the runtime applies cpu=1.5. The agent's status patch was built on the pod it was
    // given at T=4; resize #2 changed the pod since, so the API server refuses it. The agent
    // reads the pod again and rebuilds the patch, without touching resize #2's spec.
    held_->release();
    settle();
    const std::string after_t6 = client_->get(ref("kep"));
    expect_at(step("T=6"), after_t6);
    EXPECT_EQ(rest_status_->conflicts(), conflicts + 1);
    EXPECT_EQ(status_->rebuilt(),
              (std::vector<std::vector<std::string>>{{version(resize1), version(resize2)}}));

    // T=7: the watch delivers resize #2 (its event is older than the agent's T=6 write, so the
    // patch is refreshed once more). 2 CPUs fit the node but not beside the neighbour: Deferred.
    status_->clear();
    deliver(resize2);
    settle();
    expect_at(step("T=7"));
    EXPECT_EQ(status_->rebuilt(),
              (std::vector<std::vector<std::string>>{{version(resize2), version(after_t6)}}));
  }

  // No container was restarted by any resize.
  void expect_no_restart(const std::string& name) {
    const kube::Pod pod = get(name);
    const kube::ContainerStatus* c = kube::find_container_status(pod.status, "c");
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c->restart_count, 0);
    const auto running = pods_->running_pod(pod.metadata.uid);
    ASSERT_TRUE(running);
    ASSERT_EQ(running->containers.size(), 1u);
    EXPECT_EQ(running->containers[0].attempt, 0u);
  }
};

TEST_F(KepFlowControlTest, SequenceT0ToT12) {
  ASSERT_NO_FATAL_FAILURE(run_until_deferred());

  // T=8: resize #3, cpu=1.6. The Deferred condition stays, about generation 3.
  const std::string resize3 = resize_cpu("kep", "1.6");
  expect_at(step("T=8"), resize3);

  // T=9: the agent sees resize #3 and accepts it (it fits beside the neighbour); #2 is
  // superseded. The runtime call is held again to show the accepted, not yet applied state.
  held_->hold();
  deliver(resize3);
  ASSERT_TRUE(held_->wait_until_held(kKepWait)) << "the agent never called the runtime";
  expect_at(step("T=9"));

  // T=10: the runtime applies cpu=1.6; PodResizeInProgress is removed.
  held_->release();
  settle();
  expect_at(step("T=10"));

  // T=11: resize #4, cpu=100.
  const std::string resize4 = resize_cpu("kep", "100");
  expect_at(step("T=11"), resize4);

  // T=12: 100 CPUs exceed the node's allocatable: Infeasible; nothing else changes.
  deliver(resize4);
  settle();
  expect_at(step("T=12"));

  expect_no_restart("kep");
  EXPECT_EQ(events_.reasons("kep"),
            (std::vector<std::string>{"ResizeStarted", "ResizeCompleted", "ResizeDeferred",
                                      "ResizeStarted", "ResizeCompleted", "ResizeInfeasible"}));
  // The KEP's Instrumentation: #1 and #3 completed, #2 canceled (superseded while Deferred),
  // #4 infeasible; proposed = infeasible + completed + canceled.
  EXPECT_EQ(metrics_.resize_count(allocation::ResizeState::Proposed), 4);
  EXPECT_EQ(metrics_.resize_count(allocation::ResizeState::Completed), 2);
  EXPECT_EQ(metrics_.resize_count(allocation::ResizeState::Canceled), 1);
  EXPECT_EQ(metrics_.resize_count(allocation::ResizeState::Infeasible), 1);
  EXPECT_EQ(metrics_.resize_count(allocation::ResizeState::Deferred), 1);
}

// The other way out of T=7: capacity frees (the neighbour is deleted) and the Deferred resize #2
// is accepted and applied at once, without a new resize or the periodic retry.
TEST_F(KepFlowControlTest, DeferredAtT7CompletesWhenCapacityFrees) {
  ASSERT_NO_FATAL_FAILURE(run_until_deferred());

  delete_pod("neighbour");
  expect_at(
      {"T=7, then the neighbour is deleted", 2000, 2000, 2000, false, 2048, 2048, {}, {}, 3, 3});
  expect_no_restart("kep");
  EXPECT_EQ(events_.reasons("kep"),
            (std::vector<std::string>{"ResizeStarted", "ResizeCompleted", "ResizeDeferred",
                                      "ResizeStarted", "ResizeCompleted"}));
  EXPECT_EQ(metrics_.resize_count(allocation::ResizeState::Proposed), 2);
  EXPECT_EQ(metrics_.resize_count(allocation::ResizeState::Completed), 2);
}

}  // namespace
}  // namespace tailor::node::testing
