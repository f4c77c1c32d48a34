// The resize manager end to end: pods in an in-process tailor-cluster, containers in a real
// containerd, resizes through pods/{name}/resize as a user sends them. After each resize the
// real cgroup files (containers and pod) hold the allocation, the API shows allocatedResources,
// resources and the conditions the kubelet would, and no container was restarted.
// KEP-1287 test plan cases: Guaranteed and Burstable, CPU / memory / both, increase / decrease /
// mixed; three containers with net increase, net decrease and no net change; Deferred completing
// when another pod is deleted; Infeasible; a memory decrease below usage; a restart mid-resize.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>

#include "embedded/server/cluster.h"
#include "kube/client/rest_client.h"
#include "kube/model/decode.h"
#include "kube/model/encode.h"
#include "kube/model/pod_resources.h"
#include "kube/model/qos.h"
#include "node-agent/allocation/allocation_state.h"
#include "node-agent/allocation/resize_manager.h"
#include "node-agent/allocation/resize_manager_cri.h"
#include "tests/embedded/cluster_rest_config.h"
#include "tests/node-agent/containerd/forwarding_runtime.h"
#include "tests/node-agent/containerd/runtime_fixture.h"

namespace tailor::node::testing {
namespace {

using namespace std::chrono_literals;

constexpr const char* kNode = "node-1";
const cri::CgroupLayout kV1{"/sys/fs/cgroup", cri::CgroupVersion::V1};

struct Spec {
  std::string name;
  std::string cpu_request, cpu_limit, memory_request, memory_limit;
  std::vector<std::string> command = {"sleep", "3600"};
};

kube::Container make_container(const Spec& s) {
  kube::Container c;
  c.name = s.name;
  c.image = "busybox";
  auto set = [](kube::ResourceList& list, std::string_view resource, const std::string& value) {
    if (!value.empty()) list.insert_or_assign(resource, kube::Quantity::parse(value));
  };
  set(c.resources.requests, kube::kResourceCpu, s.cpu_request);
  set(c.resources.limits, kube::kResourceCpu, s.cpu_limit);
  set(c.resources.requests, kube::kResourceMemory, s.memory_request);
  set(c.resources.limits, kube::kResourceMemory, s.memory_limit);
  return c;
}

class RecordedEvents : public allocation::ResizeEventSink {
 public:
  void event(const kube::Pod& pod, const std::string& type, const std::string& reason,
             const std::string& message) override {
    reasons[pod.metadata.name].push_back(reason);
  }
  std::map<std::string, std::vector<std::string>> reasons;
};

class StoreCheckpoint : public allocation::AllocationCheckpoint {
 public:
  explicit StoreCheckpoint(allocation::CheckpointStore store) : store(std::move(store)) {}
  void save(const allocation::Checkpoint& checkpoint) override { store.save(checkpoint); }
  allocation::CheckpointStore store;
};

// What the pod runtime (the kubelet's part that starts containers) does, for these tests: a
// sandbox under the pod cgroup named as the kubelet names it, sized first, then the containers
// with the allocation and the kubelet's labels, and the running state in the API.
class RunningPods {
 public:
  RunningPods(cri::RuntimeService& cri, kube::RestClient& client) : cri_(cri), client_(client) {}
  ~RunningPods() {
    for (const auto& [uid, sandbox] : sandboxes_) {
      try {
        if (!sandbox.id.empty()) {  // not stopped by the test
          cri_.stop_pod_sandbox(sandbox.id);
          cri_.remove_pod_sandbox(sandbox.id);
        }
      } catch (const std::exception& e) {
        ADD_FAILURE() << "cleaning up sandbox " << sandbox.id << ": " << e.what();
      }
      for (const char* controller : {"cpu", "memory", "cpuacct", "pids", "cpuset", "blkio",
                                     "devices", "freezer", "hugetlb", "net_cls", "perf_event"}) {
        std::error_code ignored;
        std::filesystem::remove(kV1.root / controller / sandbox.cgroup.substr(1), ignored);
      }
    }
  }

  void start(const kube::Pod& pod, const allocation::AllocatedPod& allocation,
             const std::vector<Spec>& specs) {
    Sandbox& sandbox = sandboxes_[pod.metadata.uid];
    sandbox.cgroup = allocation::pod_cgroup_path_of(pod, cri::CgroupDriver::Cgroupfs);
    std::vector<cri::ResourceAmounts> amounts;
    for (const allocation::AllocatedContainer& c : allocation.containers) {
      amounts.push_back(allocation::amounts_of(c.resources));
    }
    cri::PodSandboxSpec spec;
    spec.name = pod.metadata.name;
    spec.uid = pod.metadata.uid;
    spec.ns = pod.metadata.namespace_;
    spec.cgroup_parent = sandbox.cgroup;
    spec.network = cri::NamespaceMode::Node;
    spec.labels["io.kubernetes.pod.uid"] = pod.metadata.uid;
    sandbox.id = cri_.run_pod_sandbox(spec);
    cri::CgroupFiles(kV1, sandbox.cgroup)
        .write(cri::pod_cgroup_values(amounts, {}, kube::pod_qos(pod)));
    boost::json::array statuses;
    for (std::size_t i = 0; i < specs.size(); ++i) {
      cri::ContainerSpec container;
      container.name = specs[i].name;
      container.image = "docker.io/library/busybox:latest";
      container.command = specs[i].command;
      container.labels["io.kubernetes.pod.uid"] = pod.metadata.uid;
      container.labels["io.kubernetes.container.name"] = specs[i].name;
      container.resources = cri::to_linux_resources(cri::container_cgroup_values(amounts[i]));
      const std::string id = cri_.create_container(sandbox.id, container, spec);
      cri_.start_container(id);
      sandbox.containers[specs[i].name] = id;
      statuses.push_back({{"name", specs[i].name},
                          {"containerID", "containerd://" + id},
                          {"image", "busybox"},
                          {"imageID", ""},
                          {"ready", true},
                          {"started", true},
                          {"restartCount", 0},
                          {"state", {{"running", {{"startedAt", "2026-01-01T00:00:00Z"}}}}}});
    }
    const boost::json::object patch{
        {"status", {{"phase", "Running"}, {"containerStatuses", std::move(statuses)}}}};
    client_.patch(kube::ObjectRef{kube::resources::kPods, pod.metadata.namespace_,
                                  pod.metadata.name, "status"},
                  kube::PatchType::Merge, boost::json::serialize(patch));
  }

  const std::string& container_id(const kube::Pod& pod, const std::string& name) {
    return sandboxes_.at(pod.metadata.uid).containers.at(name);
  }
  void stop(const kube::Pod& pod) {
    auto it = sandboxes_.find(pod.metadata.uid);
    cri_.stop_pod_sandbox(it->second.id);
    cri_.remove_pod_sandbox(it->second.id);
    it->second.id.clear();
  }
  // Running containers of the pod, by name → attempt; a restart would show a new attempt.
  std::map<std::string, std::uint32_t> attempts(const kube::Pod& pod) {
    cri::ContainerFilter filter;
    filter.label_selector["io.kubernetes.pod.uid"] = pod.metadata.uid;
    std::map<std::string, std::uint32_t> out;
    for (const cri::ContainerSummary& c : cri_.list_containers(filter)) {
      if (c.state == cri::ContainerState::Running) out[c.name] = c.attempt;
    }
    return out;
  }

 private:
  struct Sandbox {
    std::string id, cgroup;
    std::map<std::string, std::string> containers;
  };
  cri::RuntimeService& cri_;
  kube::RestClient& client_;
  std::map<std::string, Sandbox> sandboxes_;
};

class ResizeManagerContainerdTest : public RealContainerd {
 protected:
  void SetUp() override {
    RealContainerd::SetUp();
    char tmpl[] = "/tmp/tailor-agent-test-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    embedded::ClusterOptions options;
    options.control_loops = false;  // no simulated kubelet: this test is the node
    cluster_ = std::make_unique<embedded::Cluster>(options);
    cluster_->start();
    kube::RestConfig config = embedded::testing::cluster_rest_config(*cluster_);
    config.max_retries = 0;
    client_ = std::make_unique<kube::RestClient>(config);
    running_ = std::make_unique<RunningPods>(*cri_, *client_);
    runtime_ = std::make_unique<allocation::CriPodResources>(
        *cri_, allocation::CriPodResourcesOptions{kV1});
    status_ = std::make_unique<allocation::RestPodStatusWriter>(*client_);
    checkpoint_ = std::make_unique<StoreCheckpoint>(allocation::CheckpointStore(dir_));
    start_manager();
  }

  void TearDown() override {
    manager_.reset();
    running_.reset();
    cluster_.reset();
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }

  void start_manager() {
    allocation::ResizeManagerOptions options;
    options.node_allocatable = {{"cpu", kube::Quantity::parse("2")},
                                {"memory", kube::Quantity::parse("1Gi")}};
    options.error_backoff_initial = 100ms;
    options.error_backoff_max = 500ms;
    manager_ = std::make_unique<allocation::ResizeManager>(options, *runtime_, *status_, events_,
                                                           *checkpoint_, metrics_);
  }

  kube::ObjectRef ref(const std::string& name, std::string subresource = "") {
    return kube::ObjectRef{kube::resources::kPods, "default", name, std::move(subresource)};
  }
  kube::Pod get(const std::string& name) { return kube::decode_pod(client_->get(ref(name))); }

  // Creates the pod bound to the node, admits it, runs it, and lets the agent report it.
  kube::Pod create(const std::string& name, const std::vector<Spec>& specs,
                   const std::string& resize_restart_policy = "") {
    kube::Pod pod;
    pod.metadata.name = name;
    pod.metadata.namespace_ = "default";
    pod.spec.node_name = kNode;
    pod.spec.restart_policy = "Always";
    for (const Spec& s : specs) {
      pod.spec.containers.push_back(make_container(s));
      if (!resize_restart_policy.empty()) {
        pod.spec.containers.back().resize_policy = {{"memory", resize_restart_policy}};
      }
    }
    pod = kube::decode_pod(client_->create(ref(""), kube::to_json(pod)));
    manager_->sync_pod(pod);
    const auto allocation = manager_->allocation(pod.metadata.uid);
    if (!allocation) return get(name);
    running_->start(pod, *allocation, specs);
    manager_->sync_pod(get(name));
    return get(name);
  }

  // A user's resize through pods/{name}/resize, then the agent's reaction to the watch event.
  kube::Pod resize(const std::string& name, const std::vector<Spec>& specs) {
    kube::ResizePatch patch;
    for (const Spec& s : specs) patch.containers.push_back({s.name, make_container(s).resources});
    client_->patch(ref(name, "resize"), kube::PatchType::StrategicMerge, kube::resize_patch(patch));
    manager_->sync_pod(get(name));
    return get(name);
  }

  // The container's and the pod's cgroup files hold what the allocation gives, and the API shows
  // it as allocated and actual with no resize condition left.
  void expect_applied(const kube::Pod& pod) {
    SCOPED_TRACE("pod " + pod.metadata.name);
    const auto allocation = manager_->allocation(pod.metadata.uid);
    ASSERT_TRUE(allocation);
    EXPECT_FALSE(allocation->resize_in_progress);
    EXPECT_EQ(allocation->containers, allocation::desired_allocation(pod).containers);
    const std::string pod_path = allocation::pod_cgroup_path_of(pod, cri::CgroupDriver::Cgroupfs);
    std::vector<cri::ResourceAmounts> all;
    for (const allocation::AllocatedContainer& c : allocation->containers) {
      const cri::ResourceAmounts amounts = allocation::amounts_of(c.resources);
      all.push_back(amounts);
      const std::string id = running_->container_id(pod, c.name);
      const cri::CgroupValues files =
          cri::CgroupFiles(kV1,
                           cri::container_cgroup_path(pod_path, id, cri::CgroupDriver::Cgroupfs))
              .read();
      EXPECT_EQ(files, cri::container_cgroup_values(amounts)) << c.name;
      const kube::ContainerStatus* status = kube::find_container_status(pod.status, c.name);
      ASSERT_NE(status, nullptr) << c.name;
      EXPECT_EQ(status->allocated_resources, c.resources.requests) << c.name;
      ASSERT_TRUE(status->resources) << c.name;
      EXPECT_EQ(*status->resources, c.resources) << c.name;
      EXPECT_EQ(status->restart_count, 0) << c.name;
    }
    const cri::CgroupValues pod_files = cri::CgroupFiles(kV1, pod_path).read();
    const cri::CgroupValues pod_expected = cri::pod_cgroup_values(all, {}, kube::pod_qos(pod));
    EXPECT_EQ(pod_files.cpu_shares, pod_expected.cpu_shares);
    if (pod_expected.cpu_quota_us) {
      EXPECT_EQ(pod_files.cpu_quota_us, pod_expected.cpu_quota_us);
    }
    if (pod_expected.memory_limit_bytes) {
      EXPECT_EQ(pod_files.memory_limit_bytes, pod_expected.memory_limit_bytes);
    }
    EXPECT_EQ(kube::find_condition(pod.status, kube::kPodResizePending), nullptr);
    EXPECT_EQ(kube::find_condition(pod.status, kube::kPodResizeInProgress), nullptr);
    for (const auto& [name, attempt] : running_->attempts(pod)) {
      EXPECT_EQ(attempt, 0u) << name << " was restarted";
    }
  }

  // Σ container limits ≤ pod limit in the real files.
  void expect_pod_limits_hold(const kube::Pod& pod) {
    const std::string pod_path = allocation::pod_cgroup_path_of(pod, cri::CgroupDriver::Cgroupfs);
    std::int64_t memory = 0, quota = 0;
    for (const kube::Container& c : pod.spec.containers) {
      const std::string id = running_->container_id(pod, c.name);
      const cri::CgroupValues files =
          cri::CgroupFiles(kV1,
                           cri::container_cgroup_path(pod_path, id, cri::CgroupDriver::Cgroupfs))
              .read();
      memory += files.memory_limit_bytes.value_or(0);
      quota += files.cpu_quota_us.value_or(0);
    }
    const cri::CgroupValues pod_files = cri::CgroupFiles(kV1, pod_path).read();
    EXPECT_LE(memory, pod_files.memory_limit_bytes.value_or(0));
    EXPECT_LE(quota, pod_files.cpu_quota_us.value_or(0));
  }

  std::filesystem::path dir_;
  std::unique_ptr<embedded::Cluster> cluster_;
  std::unique_ptr<kube::RestClient> client_;
  std::unique_ptr<RunningPods> running_;
  std::unique_ptr<allocation::CriPodResources> runtime_;
  std::unique_ptr<allocation::RestPodStatusWriter> status_;
  std::unique_ptr<StoreCheckpoint> checkpoint_;
  RecordedEvents events_;
  kube::metrics::Registry registry_;
  allocation::NodeAgentMetrics metrics_{registry_};
  std::unique_ptr<allocation::ResizeManager> manager_;
};

struct SingleCase {
  std::string name;
  Spec from, to;
};

// KEP-1287 e2e table: one container, Guaranteed and Burstable, each resource and both.
const SingleCase kSingleContainerCases[] = {
    {"guaranteed-cpu-up",
     {"c", "100m", "100m", "100Mi", "100Mi"},
     {"c", "200m", "200m", "100Mi", "100Mi"}},
    {"guaranteed-cpu-down",
     {"c", "200m", "200m", "100Mi", "100Mi"},
     {"c", "100m", "100m", "100Mi", "100Mi"}},
    {"guaranteed-mem-up",
     {"c", "100m", "100m", "100Mi", "100Mi"},
     {"c", "100m", "100m", "200Mi", "200Mi"}},
    {"guaranteed-mem-down",
     {"c", "100m", "100m", "200Mi", "200Mi"},
     {"c", "100m", "100m", "100Mi", "100Mi"}},
    {"guaranteed-both-up",
     {"c", "100m", "100m", "100Mi", "100Mi"},
     {"c", "200m", "200m", "200Mi", "200Mi"}},
    {"guaranteed-both-down",
     {"c", "200m", "200m", "200Mi", "200Mi"},
     {"c", "100m", "100m", "100Mi", "100Mi"}},
    {"guaranteed-cpu-up-mem-down",
     {"c", "100m", "100m", "200Mi", "200Mi"},
     {"c", "200m", "200m", "100Mi", "100Mi"}},
    {"burstable-cpu-up",
     {"c", "100m", "200m", "100Mi", "200Mi"},
     {"c", "200m", "400m", "100Mi", "200Mi"}},
    {"burstable-cpu-down",
     {"c", "200m", "400m", "100Mi", "200Mi"},
     {"c", "100m", "200m", "100Mi", "200Mi"}},
    {"burstable-mem-up",
     {"c", "100m", "200m", "100Mi", "200Mi"},
     {"c", "100m", "200m", "200Mi", "300Mi"}},
    {"burstable-mem-down",
     {"c", "100m", "200m", "200Mi", "300Mi"},
     {"c", "100m", "200m", "100Mi", "200Mi"}},
    {"burstable-cpu-down-mem-up",
     {"c", "200m", "400m", "100Mi", "200Mi"},
     {"c", "100m", "200m", "200Mi", "300Mi"}},
    {"burstable-requests-only", {"c", "100m", "", "100Mi", ""}, {"c", "300m", "", "150Mi", ""}},
};

TEST_F(ResizeManagerContainerdTest, SingleContainerCases) {
  for (const SingleCase& c : kSingleContainerCases) {
    SCOPED_TRACE(c.name);
    const kube::Pod created = create(c.name, {c.from});
    expect_applied(created);
    const kube::Pod after = resize(c.name, {c.to});
    expect_applied(after);
    EXPECT_EQ(events_.reasons[c.name],
              (std::vector<std::string>{"ResizeStarted", "ResizeCompleted"}));
    client_->remove(ref(c.name));
    manager_->remove_pod(created.metadata.uid);
  }
}

struct ThreeCase {
  std::string name;
  std::vector<Spec> from, to;
};

const ThreeCase kThreeContainerCases[] = {
    {"net-increase",
     {{"a", "100m", "100m", "100Mi", "100Mi"},
      {"b", "200m", "200m", "200Mi", "200Mi"},
      {"c", "300m", "300m", "300Mi", "300Mi"}},
     {{"a", "50m", "50m", "50Mi", "50Mi"},
      {"b", "300m", "300m", "300Mi", "300Mi"},
      {"c", "400m", "400m", "400Mi", "400Mi"}}},
    {"net-decrease",
     {{"a", "100m", "100m", "100Mi", "100Mi"},
      {"b", "200m", "200m", "200Mi", "200Mi"},
      {"c", "300m", "300m", "300Mi", "300Mi"}},
     {{"a", "150m", "150m", "150Mi", "150Mi"},
      {"b", "100m", "100m", "100Mi", "100Mi"},
      {"c", "200m", "200m", "200Mi", "200Mi"}}},
    {"no-net-change",
     {{"a", "100m", "100m", "100Mi", "100Mi"},
      {"b", "200m", "200m", "200Mi", "200Mi"},
      {"c", "300m", "300m", "300Mi", "300Mi"}},
     {{"a", "200m", "200m", "200Mi", "200Mi"},
      {"b", "100m", "100m", "100Mi", "100Mi"},
      {"c", "300m", "300m", "300Mi", "300Mi"}}},
};

TEST_F(ResizeManagerContainerdTest, ThreeContainerCases) {
  for (const ThreeCase& c : kThreeContainerCases) {
    SCOPED_TRACE(c.name);
    const kube::Pod created = create(c.name, c.from);
    expect_applied(created);
    expect_applied(resize(c.name, c.to));
    client_->remove(ref(c.name));
    manager_->remove_pod(created.metadata.uid);
  }
}

TEST_F(ResizeManagerContainerdTest, DeferredResizeCompletesWhenAnotherPodIsDeleted) {
  const kube::Pod big = create("big", {{"c", "1200m", "1200m", "100Mi", "100Mi"}});
  const kube::Pod small = create("small", {{"c", "500m", "500m", "100Mi", "100Mi"}});
  kube::Pod deferred = resize("small", {{"c", "1", "1", "100Mi", "100Mi"}});
  const kube::PodCondition* pending =
      kube::find_condition(deferred.status, kube::kPodResizePending);
  ASSERT_NE(pending, nullptr);
  EXPECT_EQ(pending->reason, "Deferred");
  EXPECT_EQ(pending->message,
            "Node didn't have enough resource: cpu, requested: 1000, used: 1200, capacity: 2000");
  EXPECT_EQ(pending->observed_generation, deferred.metadata.generation);
  // The cgroups still hold the old allocation.
  EXPECT_EQ(manager_->allocation(small.metadata.uid)->containers[0].resources.limits.at("cpu"),
            kube::Quantity::parse("500m"));

  client_->remove(ref("big"));
  running_->stop(big);
  manager_->remove_pod(big.metadata.uid);  // the watch's DELETED event
  expect_applied(get("small"));
  EXPECT_EQ(events_.reasons["small"],
            (std::vector<std::string>{"ResizeDeferred", "ResizeStarted", "ResizeCompleted"}));
}

TEST_F(ResizeManagerContainerdTest, InfeasibleResizeLeavesTheCgroupsAlone) {
  const kube::Pod pod = create("huge", {{"c", "100m", "100m", "100Mi", "100Mi"}});
  const kube::Pod after = resize("huge", {{"c", "100m", "100m", "2Gi", "2Gi"}});
  const kube::PodCondition* pending = kube::find_condition(after.status, kube::kPodResizePending);
  ASSERT_NE(pending, nullptr);
  EXPECT_EQ(pending->reason, "Infeasible");
  EXPECT_EQ(pending->message,
            "Node didn't have enough capacity: memory, requested: 2147483648, "
            "capacity: 1073741824");
  const std::string pod_path = allocation::pod_cgroup_path_of(pod, cri::CgroupDriver::Cgroupfs);
  const std::string id = running_->container_id(pod, "c");
  EXPECT_EQ(
      cri::CgroupFiles(kV1, cri::container_cgroup_path(pod_path, id, cri::CgroupDriver::Cgroupfs))
          .read()
          .memory_limit_bytes,
      100 * 1024 * 1024);
}

// The container holds ~40 MiB in /dev/shm for a few seconds, then frees it. A decrease to 20 MiB
// is refused meanwhile (PodResizeInProgress Error with the kubelet's message) and applied once
// usage allows.
TEST_F(ResizeManagerContainerdTest, MemoryDecreaseBelowUsageWaitsForUsage) {
  Spec spec{"c",
            "100m",
            "100m",
            "100Mi",
            "100Mi",
            {"sh", "-c",
             "dd if=/dev/zero of=/dev/shm/fill bs=1M count=40 && sleep 3 && rm /dev/shm/fill && "
             "exec sleep 3600"}};
  const kube::Pod pod = create("hungry", {spec});
  const std::string id = running_->container_id(pod, "c");
  const cri::CgroupFiles cgroup(
      kV1,
      cri::container_cgroup_path(allocation::pod_cgroup_path_of(pod, cri::CgroupDriver::Cgroupfs),
                                 id, cri::CgroupDriver::Cgroupfs));
  for (auto deadline = std::chrono::steady_clock::now() + 5s;
       cgroup.memory_usage_bytes() < 40 * 1024 * 1024;) {
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "the container never used 40 MiB";
    std::this_thread::sleep_for(20ms);
  }
  Spec smaller = spec;
  smaller.memory_request = smaller.memory_limit = "20Mi";
  kube::Pod after = resize("hungry", {smaller});
  const kube::PodCondition* in_progress =
      kube::find_condition(after.status, kube::kPodResizeInProgress);
  ASSERT_NE(in_progress, nullptr);
  EXPECT_EQ(in_progress->reason, "Error");
  EXPECT_NE(in_progress->message.find("memory limit (20971520) below current usage ("),
            std::string::npos)
      << in_progress->message;
  EXPECT_EQ(cgroup.read().memory_limit_bytes, 100 * 1024 * 1024);  // unchanged
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  while (manager_->allocation(pod.metadata.uid)->resize_in_progress) {
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "the retry never applied it";
    std::this_thread::sleep_for(100ms);
    manager_->retry_failed();
  }
  expect_applied(get("hungry"));
}

// A runtime that dies (throws) after `fail_after` container updates: the agent was killed in the
// middle of a multi-container resize.
class DyingRuntime : public ForwardingRuntime {
 public:
  DyingRuntime(cri::RuntimeService& inner, int fail_after)
      : ForwardingRuntime(inner), left_(fail_after) {}
  void update_container_resources(const std::string& id, const cri::LinuxResources& r) override {
    if (left_-- <= 0)
      throw cri::CriError(cri::CriErrorKind::Unavailable, "UpdateContainerResources", "killed");
    inner_.update_container_resources(id, r);
  }

 private:
  int left_;
};

TEST_F(ResizeManagerContainerdTest, RestartInTheMiddleOfAMultiContainerResizeCompletesIt) {
  const std::vector<Spec> from = {{"a", "100m", "100m", "100Mi", "100Mi"},
                                  {"b", "200m", "200m", "200Mi", "200Mi"},
                                  {"c", "300m", "300m", "300Mi", "300Mi"}};
  const std::vector<Spec> to = {{"a", "50m", "50m", "50Mi", "50Mi"},
                                {"b", "300m", "300m", "300Mi", "300Mi"},
                                {"c", "400m", "400m", "400Mi", "400Mi"}};
  create("three", from);
  DyingRuntime dying(*cri_, 2);  // memory of a and b applied, then the agent is gone
  runtime_ =
      std::make_unique<allocation::CriPodResources>(dying, allocation::CriPodResourcesOptions{kV1});
  start_manager();
  kube::Pod pod = get("three");
  manager_->restore(*checkpoint_->store.load(), {pod});
  resize("three", to);
  ASSERT_TRUE(checkpoint_->store.load()->pods.at(pod.metadata.uid).resize_in_progress);
  expect_pod_limits_hold(pod);  // where the agent stopped

  // The agent starts again from its checkpoint file.
  runtime_ =
      std::make_unique<allocation::CriPodResources>(*cri_, allocation::CriPodResourcesOptions{kV1});
  start_manager();
  const auto checkpoint = checkpoint_->store.load();  // intact
  ASSERT_TRUE(checkpoint);
  manager_->restore(*checkpoint, {get("three")});
  expect_applied(get("three"));
  expect_pod_limits_hold(get("three"));
  EXPECT_FALSE(checkpoint_->store.load()->pods.at(pod.metadata.uid).resize_in_progress);
}

}  // namespace
}  // namespace tailor::node::testing
