// The resize path with the embedded pod runtime on a real containerd, as tailor-node-agent runs
// it: the manager admits and actuates, PodRuntime runs the containers and reports their state.
// resizePolicy RestartContainer restarts that container with the new resources (restart count
// 1) while a NotRequired sibling is resized in place (restart count 0); a container removed
// behind the agent's back makes the resize fail with the runtime's error, and it completes once
// the pod runtime has started the container again; a read-only pod cgroup file (a read-only bind
// mount, as in a container with /sys/fs/cgroup read-only) fails it with the file named.
#include <gtest/gtest.h>
#include <sys/mount.h>

#include <cstring>
#include <filesystem>
#include <functional>
#include <thread>

#include "embedded/server/cluster.h"
#include "kube/client/rest_client.h"
#include "kube/model/decode.h"
#include "kube/model/pod_resources.h"
#include "kube/model/qos.h"
#include "node-agent/allocation/allocation_state.h"
#include "node-agent/allocation/resize_manager.h"
#include "node-agent/allocation/resize_manager_cri.h"
#include "node-agent/runtime/pod_runtime.h"
#include "tests/embedded/cluster_rest_config.h"
#include "tests/node-agent/containerd/forwarding_runtime.h"
#include "tests/node-agent/containerd/runtime_fixture.h"

namespace tailor::node::testing {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

constexpr const char* kNode = "node-1";
const cri::CgroupLayout kV1{"/sys/fs/cgroup", cri::CgroupVersion::V1};
constexpr std::int64_t kMi = 1024 * 1024;

class NoEvents : public allocation::ResizeEventSink {
 public:
  void event(const kube::Pod& pod, const std::string&, const std::string& reason,
             const std::string& message) override {
    recorded.push_back(pod.metadata.name + " " + reason + ": " + message);
  }
  std::vector<std::string> recorded;
};

class NoCheckpoint : public allocation::AllocationCheckpoint {
 public:
  void save(const allocation::Checkpoint&) override {}
};

// Removes the container behind the agent's back just before the agent's first update of it:
// the real runtime then answers NOT_FOUND.
class RemovingRuntime : public ForwardingRuntime {
 public:
  explicit RemovingRuntime(cri::RuntimeService& inner) : ForwardingRuntime(inner) {}
  void update_container_resources(const std::string& id, const cri::LinuxResources& r) override {
    if (remove_next) {
      remove_next = false;
      removed = id;
      inner_.stop_container(id, 0);
      inner_.remove_container(id);
    }
    inner_.update_container_resources(id, r);
  }
  bool remove_next = false;
  std::string removed;
};

class ResizeRestartContainerdTest : public RealContainerd {
 protected:
  void SetUp() override {
    RealContainerd::SetUp();
    if (HasFatalFailure()) return;
    char tmpl[] = "/tmp/tailor-resize-restart-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    embedded::ClusterOptions options;
    options.control_loops = false;  // this test is the node
    cluster_ = std::make_unique<embedded::Cluster>(options);
    cluster_->start();
    kube::RestConfig config = embedded::testing::cluster_rest_config(*cluster_);
    config.max_retries = 0;
    client_ = std::make_unique<kube::RestClient>(config);
    images_ = cri::connect_image_service({socket_, 10s, 10s});
    api_ = runtime::rest_pod_api(*client_);
    pods_ = std::make_unique<runtime::PodRuntime>(
        *cri_, *images_, *api_,
        runtime::PodRuntimeOptions{
            .node_name = kNode, .cgroups = kV1, .log_root = (dir_ / "logs").string()});
    removing_ = std::make_unique<RemovingRuntime>(*cri_);
    resources_ = std::make_unique<allocation::CriPodResources>(
        *removing_,
        allocation::CriPodResourcesOptions{kV1, cri::CgroupDriver::Cgroupfs, pods_.get()});
    status_ = std::make_unique<allocation::RestPodStatusWriter>(*client_);
    allocation::ResizeManagerOptions manager_options;
    manager_options.node_allocatable = {{"cpu", kube::Quantity::parse("2")},
                                        {"memory", kube::Quantity::parse("1Gi")}};
    manager_options.error_backoff_initial = 10ms;
    manager_options.error_backoff_max = 10ms;
    manager_ = std::make_unique<allocation::ResizeManager>(manager_options, *resources_, *status_,
                                                           events_, checkpoint_, metrics_);
  }

  void TearDown() override {
    if (pods_) pods_->remove_orphans({});  // stops what the test started, removes pod cgroups
    manager_.reset();
    pods_.reset();
    cluster_.reset();
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }

  kube::ObjectRef ref(const std::string& name, std::string subresource = "") {
    return kube::ObjectRef{kube::resources::kPods, "default", name, std::move(subresource)};
  }
  runtime::RuntimePod get(const std::string& name) {
    return runtime::decode_runtime_pod(client_->get(ref(name)));
  }

  // One pass of the node agent over the pod, in agent mode's order: the manager, then the pod
  // runtime with the allocation.
  void step(const std::string& name) {
    runtime::RuntimePod pod = get(name);
    manager_->sync_pod(pod.pod);
    manager_->retry_failed();
    const auto allocation = manager_->allocation(pod.pod.metadata.uid);
    ASSERT_TRUE(allocation) << name << " was not admitted";
    runtime::PodAllocation amounts;
    for (const allocation::AllocatedContainer& c : allocation->containers) {
      amounts[c.name] = allocation::amounts_of(c.resources);
    }
    pods_->sync_pod(get(name), amounts);
  }

  // Steps until `done` holds for the pod as stored, failing after a while.
  kube::Pod step_until(const std::string& name, const std::function<bool(const kube::Pod&)>& done) {
    const auto deadline = std::chrono::steady_clock::now() + 30s;
    for (;;) {
      step(name);
      const kube::Pod pod = get(name).pod;
      if (done(pod)) return pod;
      if (std::chrono::steady_clock::now() > deadline) {
        ADD_FAILURE() << name << " never reached the expected state; last seen: "
                      << client_->get(ref(name));
        return pod;
      }
      std::this_thread::sleep_for(50ms);
    }
  }

  static bool running(const kube::Pod& pod) {
    if (pod.status.container_statuses.size() != pod.spec.containers.size()) return false;
    for (const kube::ContainerStatus& s : pod.status.container_statuses) {
      if (!s.state.running) return false;
    }
    return true;
  }
  // Running, with the actual resources reported (the API refuses a resize before that).
  static bool reported(const kube::Pod& pod) {
    if (!running(pod)) return false;
    for (const kube::ContainerStatus& s : pod.status.container_statuses) {
      if (!s.resources) return false;
    }
    return true;
  }
  static bool resize_done(const kube::Pod& pod) {
    return running(pod) && !kube::find_condition(pod.status, kube::kPodResizeInProgress);
  }

  void create(const std::string& name, const std::string& containers) {
    client_->create(ref(""), R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
                                 // No control loops here: no "default" ServiceAccount.
                                 R"("},"spec":{"automountServiceAccountToken":false,"nodeName":")" +
                                 kNode + R"(","terminationGracePeriodSeconds":1,"containers":)" +
                                 containers + "}}");
    step_until(name, reported);
  }
  void resize(const std::string& name, const std::string& containers) {
    client_->patch(ref(name, "resize"), kube::PatchType::StrategicMerge,
                   R"({"spec":{"containers":)" + containers + "}}");
  }

  // The newest attempt of a container and the files of its cgroup.
  cri::ContainerSummary newest(const kube::Pod& pod, const std::string& name) {
    cri::ContainerFilter filter;
    filter.label_selector["io.kubernetes.pod.uid"] = pod.metadata.uid;
    cri::ContainerSummary out;
    for (const cri::ContainerSummary& c : cri_->list_containers(filter)) {
      if (c.name == name && (out.id.empty() || c.attempt > out.attempt)) out = c;
    }
    return out;
  }
  cri::CgroupValues container_files(const kube::Pod& pod, const std::string& name) {
    return cri::CgroupFiles(kV1,
                            cri::container_cgroup_path(
                                allocation::pod_cgroup_path_of(pod, cri::CgroupDriver::Cgroupfs),
                                newest(pod, name).id, cri::CgroupDriver::Cgroupfs))
        .read();
  }
  cri::CgroupValues pod_files(const kube::Pod& pod) {
    return cri::CgroupFiles(kV1, allocation::pod_cgroup_path_of(pod, cri::CgroupDriver::Cgroupfs))
        .read();
  }

  fs::path dir_;
  std::unique_ptr<embedded::Cluster> cluster_;
  std::unique_ptr<kube::RestClient> client_;
  std::unique_ptr<cri::ImageService> images_;
  std::unique_ptr<runtime::PodApi> api_;
  std::unique_ptr<runtime::PodRuntime> pods_;
  std::unique_ptr<RemovingRuntime> removing_;
  std::unique_ptr<allocation::CriPodResources> resources_;
  std::unique_ptr<allocation::RestPodStatusWriter> status_;
  NoEvents events_;
  NoCheckpoint checkpoint_;
  kube::metrics::Registry registry_;
  allocation::NodeAgentMetrics metrics_{registry_};
  std::unique_ptr<allocation::ResizeManager> manager_;
};

std::string sleeper(const std::string& name, const std::string& memory,
                    const std::string& memory_policy) {
  return R"({"name":")" + name +
         R"(","image":"busybox","command":["sleep","3600"],"resizePolicy":[{"resourceName":"memory","restartPolicy":")" +
         memory_policy + R"("}],"resources":{"requests":{"cpu":"100m","memory":")" + memory +
         R"("},"limits":{"cpu":"200m","memory":")" + memory + R"("}}})";
}

std::string resources(const std::string& name, const std::string& memory) {
  return R"({"name":")" + name + R"(","resources":{"requests":{"cpu":"100m","memory":")" + memory +
         R"("},"limits":{"cpu":"200m","memory":")" + memory + R"("}}})";
}

TEST_F(ResizeRestartContainerdTest, RestartContainerPolicyRestartsThatContainerOnly) {
  create("restart", "[" + sleeper("java", "64Mi", "RestartContainer") + "," +
                        sleeper("sidecar", "64Mi", "NotRequired") + "]");
  const kube::Pod before = get("restart").pod;
  const std::string sidecar_id = newest(before, "sidecar").id;
  const std::string java_id = newest(before, "java").id;

  resize("restart", "[" + resources("java", "128Mi") + "," + resources("sidecar", "96Mi") + "]");
  const kube::Pod after = step_until("restart", [](const kube::Pod& pod) {
    const kube::ContainerStatus* java = kube::find_container_status(pod.status, "java");
    return resize_done(pod) && java && java->restart_count == 1 && java->resources &&
           java->resources->limits.at("memory") == kube::Quantity::parse("128Mi");
  });

  // java: a new attempt with the new limit in its real cgroup; the old one is gone from service.
  const cri::ContainerSummary java = newest(after, "java");
  EXPECT_EQ(java.attempt, 1u);
  EXPECT_NE(java.id, java_id);
  EXPECT_EQ(java.state, cri::ContainerState::Running);
  EXPECT_EQ(container_files(after, "java").memory_limit_bytes, 128 * kMi);
  EXPECT_EQ(cri_->container_status(java.id).resources->memory_limit_in_bytes, 128 * kMi);
  // sidecar: the same container, resized in place.
  const cri::ContainerSummary sidecar = newest(after, "sidecar");
  EXPECT_EQ(sidecar.id, sidecar_id);
  EXPECT_EQ(sidecar.attempt, 0u);
  EXPECT_EQ(container_files(after, "sidecar").memory_limit_bytes, 96 * kMi);
  // The pod limit holds both.
  EXPECT_EQ(pod_files(after).memory_limit_bytes, 224 * kMi);
  // The API: restart counts, allocated and actual resources, no condition left.
  EXPECT_EQ(kube::find_container_status(after.status, "java")->restart_count, 1);
  EXPECT_EQ(kube::find_container_status(after.status, "sidecar")->restart_count, 0);
  EXPECT_EQ(kube::find_container_status(after.status, "sidecar")->resources->limits.at("memory"),
            kube::Quantity::parse("96Mi"));
  EXPECT_EQ(kube::find_container_status(after.status, "java")->allocated_resources.at("memory"),
            kube::Quantity::parse("128Mi"));
  EXPECT_EQ(kube::find_condition(after.status, kube::kPodResizePending), nullptr);
  EXPECT_EQ(events_.recorded, (std::vector<std::string>{
                                  "restart ResizeStarted: Pod resize started: generation 2",
                                  "restart ResizeCompleted: Pod resize completed: generation 2"}));
}

TEST_F(ResizeRestartContainerdTest, ContainerRemovedBehindTheAgentsBackFailsThenRecovers) {
  create("removed", "[" + sleeper("app", "64Mi", "NotRequired") + "]");
  removing_->remove_next = true;
  resize("removed", "[" + resources("app", "96Mi") + "]");
  runtime::RuntimePod pod = get("removed");
  manager_->sync_pod(pod.pod);
  const kube::Pod failed = get("removed").pod;
  const kube::PodCondition* in_progress =
      kube::find_condition(failed.status, kube::kPodResizeInProgress);
  ASSERT_NE(in_progress, nullptr);
  EXPECT_EQ(in_progress->reason, "Error");
  const std::string prefix =
      "CRI UpdateContainerResources (container " + removing_->removed + "): not found: ";
  EXPECT_EQ(in_progress->message.substr(0, prefix.size()), prefix) << in_progress->message;
  ASSERT_FALSE(events_.recorded.empty());
  EXPECT_EQ(events_.recorded.back(), "removed ResizeError: " + in_progress->message);

  // The pod runtime starts the container again, with the allocation; the retry completes.
  const kube::Pod after = step_until("removed", resize_done);
  EXPECT_EQ(container_files(after, "app").memory_limit_bytes, 96 * kMi);
  EXPECT_EQ(kube::find_container_status(after.status, "app")->resources->limits.at("memory"),
            kube::Quantity::parse("96Mi"));
}

// A read-only bind mount over the pod's memory.limit_in_bytes: the pod limit cannot be raised, so
// nothing is, and the error names the file; once the mount is gone the retry applies it.
TEST_F(ResizeRestartContainerdTest, ReadOnlyPodCgroupFileFailsWithTheFileNamed) {
  create("readonly", "[" + sleeper("app", "64Mi", "NotRequired") + "]");
  const kube::Pod pod = get("readonly").pod;
  const fs::path file = kV1.root / "memory" /
                        allocation::pod_cgroup_path_of(pod, cri::CgroupDriver::Cgroupfs).substr(1) /
                        "memory.limit_in_bytes";
  ASSERT_EQ(::mount(file.c_str(), file.c_str(), nullptr, MS_BIND, nullptr), 0)
      << std::strerror(errno);
  const int remounted =
      ::mount(nullptr, file.c_str(), nullptr, MS_REMOUNT | MS_BIND | MS_RDONLY, nullptr);
  const int remount_errno = errno;
  if (remounted == 0) {
    resize("readonly", "[" + resources("app", "96Mi") + "]");
    manager_->sync_pod(get("readonly").pod);
  }
  ::umount(file.c_str());
  ASSERT_EQ(remounted, 0) << std::strerror(remount_errno);
  const kube::Pod failed = get("readonly").pod;
  const kube::PodCondition* in_progress =
      kube::find_condition(failed.status, kube::kPodResizeInProgress);
  ASSERT_NE(in_progress, nullptr);
  EXPECT_EQ(in_progress->reason, "Error");
  EXPECT_EQ(in_progress->message, "writing " + std::to_string(96 * kMi) + " to " + file.string() +
                                      ": Read-only file system");
  EXPECT_EQ(container_files(failed, "app").memory_limit_bytes, 64 * kMi);  // nothing else moved

  const kube::Pod after = step_until("readonly", resize_done);
  EXPECT_EQ(pod_files(after).memory_limit_bytes, 96 * kMi);
  EXPECT_EQ(container_files(after, "app").memory_limit_bytes, 96 * kMi);
}

}  // namespace
}  // namespace tailor::node::testing
