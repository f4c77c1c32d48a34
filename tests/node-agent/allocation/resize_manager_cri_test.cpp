// The resize manager over CriPodResources with a fake CRI and a fake cgroup v1 tree:
// resizePolicy RestartContainer, and bad input — a container missing from the runtime, CRI
// errors, a read-only pod cgroup file, absurd quantities. Each ends in a pod status and an event
// that say what is wrong, never in a crash or a silent success.
#include "tests/node-agent/allocation/resize_manager_cri_fixture.h"

namespace tailor::node::allocation::testing {
namespace {

using namespace std::chrono_literals;

kube::Pod with_memory_policy(kube::Pod pod, const std::string& container,
                             const std::string& policy) {
  for (kube::Container& c : pod.spec.containers) {
    if (c.name == container) c.resize_policy = {{"memory", policy}};
  }
  return pod;
}

TEST_F(ResizeManagerCriTest, RestartContainerPolicyRestartsOnlyThatContainer) {
  kube::Pod pod = make_pod("web", {container("java", {"100m", "200m", "100Mi", "100Mi"}),
                                   container("sidecar", {"100m", "200m", "50Mi", "50Mi"})});
  pod = with_memory_policy(pod, "java", "RestartContainer");
  pod = with_memory_policy(pod, "sidecar", "NotRequired");
  run(pod);
  const std::string old_java = cri_.latest("java").status.id;
  const std::string sidecar = cri_.latest("sidecar").status.id;
  cri_.calls.clear();

  kube::Pod next = resized(pod, "java", {"100m", "200m", "200Mi", "200Mi"});
  next = resized(next, "sidecar", {"100m", "200m", "80Mi", "80Mi"});
  manager_->sync_pod(next);

  // Stop, resize the pod and the sibling in place, then start the new attempt.
  const std::string new_java = cri_.latest("java").status.id;
  EXPECT_EQ(cri_.calls,
            (std::vector<std::string>{"StopContainer " + old_java + " 1",
                                      "UpdateContainerResources " + sidecar,
                                      "CreateContainer java 1", "StartContainer " + new_java}));
  EXPECT_EQ(cri_.latest("java").spec.attempt, 1u);
  EXPECT_EQ(cri_.latest("java").status.resources->memory_limit_in_bytes, 200 * kMi);
  EXPECT_EQ(cri_.latest("sidecar").spec.attempt, 0u);
  EXPECT_EQ(cri_.latest("sidecar").status.resources->memory_limit_in_bytes, 80 * kMi);
  EXPECT_EQ(get(pod_file(pod, "memory", "memory.limit_in_bytes")), std::to_string(280 * kMi));
  EXPECT_EQ(condition(pod, kube::kPodResizeInProgress), nullptr);
  EXPECT_EQ(events_.reasons, (std::vector<std::string>{"ResizeStarted", "ResizeCompleted"}));
  EXPECT_FALSE(manager_->allocation(pod.metadata.uid)->resize_in_progress);
}

TEST_F(ResizeManagerCriTest, RestartPolicyOnAnUnchangedResourceRestartsNothing) {
  kube::Pod pod = make_pod("web", {container("java", {"100m", "200m", "100Mi", "100Mi"})});
  pod = with_memory_policy(pod, "java", "RestartContainer");
  run(pod);
  cri_.calls.clear();
  manager_->sync_pod(resized(pod, "java", {"300m", "400m", "100Mi", "100Mi"}));
  EXPECT_EQ(cri_.calls,
            std::vector<std::string>{"UpdateContainerResources " + cri_.latest("java").status.id});
  EXPECT_EQ(cri_.latest("java").spec.attempt, 0u);
  EXPECT_EQ(condition(pod, kube::kPodResizeInProgress), nullptr);
}

TEST_F(ResizeManagerCriTest, RestartWithoutAPodRuntimeIsAnError) {
  start_manager(nullptr);
  kube::Pod pod = make_pod("web", {container("java", {"100m", "200m", "100Mi", "100Mi"})});
  pod = with_memory_policy(pod, "java", "RestartContainer");
  run(pod);
  manager_->sync_pod(resized(pod, "java", {"100m", "200m", "200Mi", "200Mi"}));
  const kube::PodCondition* in_progress = condition(pod, kube::kPodResizeInProgress);
  ASSERT_NE(in_progress, nullptr);
  EXPECT_EQ(in_progress->reason, "Error");
  EXPECT_EQ(in_progress->message,
            "container \"java\" of pod default/web needs a restart (resizePolicy "
            "RestartContainer), and this node agent has no pod runtime to restart it");
  EXPECT_EQ(cri_.latest("java").spec.attempt, 0u);
}

// The runtime lost a container (removed behind the agent's back): the resize is not reported
// as done; it says which container is missing, and completes once the container is back.
TEST_F(ResizeManagerCriTest, ContainerMissingFromTheRuntimeIsAnErrorNamingIt) {
  const kube::Pod pod = make_pod("web", {container("app", {"100m", "200m", "100Mi", "100Mi"}),
                                         container("ghost", {"100m", "200m", "100Mi", "100Mi"})});
  run(pod);
  const cri::testing::FakeCri::Container ghost = cri_.latest("ghost");
  cri_.containers.erase(ghost.status.id);
  manager_->sync_pod(resized(pod, "ghost", {"200m", "400m", "100Mi", "100Mi"}));
  const kube::PodCondition* in_progress = condition(pod, kube::kPodResizeInProgress);
  ASSERT_NE(in_progress, nullptr);
  EXPECT_EQ(in_progress->reason, "Error");
  EXPECT_EQ(in_progress->message,
            "container \"ghost\" of pod default/web does not exist in the runtime");
  EXPECT_EQ(events_with("ResizeError"),
            std::vector<std::string>{"web Warning ResizeError: container \"ghost\" of pod "
                                     "default/web does not exist in the runtime"});

  // The pod runtime starts it again, with the allocation: the retry finds it and completes.
  cri::ContainerSpec spec = ghost.spec;
  spec.attempt = 1;
  spec.resources = cri::to_linux_resources(cri::container_cgroup_values(
      amounts_of(find_allocation(*manager_->allocation(pod.metadata.uid), "ghost")->resources)));
  cri_.start_container(cri_.create_container(ghost.sandbox_id, spec, {}));
  retry();
  EXPECT_EQ(condition(pod, kube::kPodResizeInProgress), nullptr);
  EXPECT_FALSE(manager_->allocation(pod.metadata.uid)->resize_in_progress);
}

TEST_F(ResizeManagerCriTest, CriErrorsAreReportedAndRetried) {
  const kube::Pod pod = make_pod("web", {container("app", {"100m", "200m", "100Mi", "100Mi"})});
  run(pod);
  const std::string id = cri_.latest("app").status.id;
  cri_.errors.emplace("UpdateContainerResources",
                      cri::CriError(cri::CriErrorKind::Other, "UpdateContainerResources",
                                    "CRI UpdateContainerResources (container " + id +
                                        "): runc did not terminate successfully: exit status 1"));
  manager_->sync_pod(resized(pod, "app", {"300m", "400m", "100Mi", "100Mi"}));
  const kube::PodCondition* in_progress = condition(pod, kube::kPodResizeInProgress);
  ASSERT_NE(in_progress, nullptr);
  EXPECT_EQ(in_progress->reason, "Error");
  EXPECT_EQ(in_progress->message, "CRI UpdateContainerResources (container " + id +
                                      "): runc did not terminate successfully: exit status 1");
  EXPECT_EQ(events_with("ResizeError").size(), 1u);

  // The runtime is unreachable on the retry: the message follows, a new kind of event.
  cri_.errors.clear();
  cri_.errors.emplace("ListContainers",
                      cri::CriError(cri::CriErrorKind::Unavailable, "ListContainers",
                                    "CRI ListContainers: runtime unavailable"));
  retry();
  EXPECT_EQ(condition(pod, kube::kPodResizeInProgress)->message,
            "CRI ListContainers: runtime unavailable");
  EXPECT_EQ(events_with("ResizeError").size(), 2u);

  cri_.errors.clear();
  retry();
  EXPECT_EQ(condition(pod, kube::kPodResizeInProgress), nullptr);
  EXPECT_EQ(cri_.latest("app").status.resources->cpu_quota, 40000);
}

TEST_F(ResizeManagerCriTest, ReadOnlyPodCgroupFileIsAnErrorNamingTheFile) {
  const kube::Pod pod = make_pod("web", {container("app", {"100m", "200m", "100Mi", "100Mi"})});
  run(pod);
  const fs::path file = pod_file(pod, "memory", "memory.limit_in_bytes");
  {
    const ReadOnlyFile read_only(file);
    manager_->sync_pod(resized(pod, "app", {"100m", "200m", "200Mi", "200Mi"}));
  }
  const kube::PodCondition* in_progress = condition(pod, kube::kPodResizeInProgress);
  ASSERT_NE(in_progress, nullptr);
  EXPECT_EQ(in_progress->reason, "Error");
  EXPECT_EQ(in_progress->message, "writing " + std::to_string(200 * kMi) + " to " + file.string() +
                                      ": Permission denied");
  EXPECT_EQ(get(file), std::to_string(100 * kMi));  // the pod limit was raised first: nothing else
  EXPECT_EQ(cri_.latest("app").status.resources->memory_limit_in_bytes, 100 * kMi);
  EXPECT_EQ(events_with("ResizeError").size(), 1u);

  retry();  // writable again
  EXPECT_EQ(condition(pod, kube::kPodResizeInProgress), nullptr);
  EXPECT_EQ(get(file), std::to_string(200 * kMi));
}

struct AbsurdCase {
  const char* name;
  Resources resources;
  std::string message;
};

// Requests the node could fit, limits no cgroup can hold: Infeasible with the value named, and
// nothing written.
const AbsurdCase kAbsurdCases[] = {
    {"cpu limit 1e18",
     {"100m", "1e18", "100Mi", "100Mi"},
     "container \"app\": limits.cpu 1e18 is more than a cgroup can hold (at most "
     "92233720368547m)"},
    {"memory limit beyond int64",
     {"100m", "200m", "100Mi", "100E"},
     "container \"app\": limits.memory 100E is more than a cgroup can hold (at most "
     "4611686018427387903)"},
    {"memory limit 2^62 reads back as unlimited",
     {"100m", "200m", "100Mi", "4Ei"},
     "container \"app\": limits.memory 4Ei is more than a cgroup can hold (at most "
     "4611686018427387903)"},
};

TEST_F(ResizeManagerCriTest, AbsurdLimitsAreInfeasibleAndNothingIsWritten) {
  for (const AbsurdCase& c : kAbsurdCases) {
    SCOPED_TRACE(c.name);
    const kube::Pod pod = make_pod("web", {container("app", {"100m", "200m", "100Mi", "100Mi"})});
    run(pod);
    cri_.calls.clear();
    events_.recorded.clear();
    manager_->sync_pod(resized(pod, "app", c.resources));
    const kube::PodCondition* pending = condition(pod, kube::kPodResizePending);
    ASSERT_NE(pending, nullptr);
    EXPECT_EQ(pending->reason, "Infeasible");
    EXPECT_EQ(pending->message, c.message);
    EXPECT_EQ(events_with("ResizeInfeasible"),
              std::vector<std::string>{"web Warning ResizeInfeasible: " + c.message});
    EXPECT_TRUE(cri_.calls.empty()) << cri_.calls.front();
    EXPECT_EQ(get(pod_file(pod, "memory", "memory.limit_in_bytes")), std::to_string(100 * kMi));
    manager_->remove_pod(pod.metadata.uid);
    cri_.containers.clear();
  }
  EXPECT_NE(registry_.serialize().find(
                "tailor_node_pod_infeasible_resizes_total{reason_detail=\"invalid_request\"} 3"),
            std::string::npos)
      << registry_.serialize();
}

TEST_F(ResizeManagerCriTest, NewPodWithAnAbsurdLimitIsRejectedNotRun) {
  manager_->sync_pod(make_pod("web", {container("app", {"100m", "1e18", "", ""})}));
  EXPECT_FALSE(manager_->allocation("uid-web"));
  EXPECT_EQ(status_.rejected.at("uid-web"),
            "UnexpectedAdmissionError: Pod was rejected: container \"app\": limits.cpu 1e18 is "
            "more than a cgroup can hold (at most 92233720368547m)");
}

}  // namespace
}  // namespace tailor::node::allocation::testing
