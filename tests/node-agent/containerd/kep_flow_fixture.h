// The node side of KEP-1287's flow-control sequence, assembled as tailor-node-agent's agent mode
// assembles it: an in-process tailor-cluster with the node registered at a given allocatable,
// the ResizeManager on its own worker thread (ResizeManagerLoop), CriPodResources on the real
// containerd, RestPodStatusWriter, the allocation checkpoint in a file, and PodRuntime running
// the pods. The test plays the pod informer: it hands each watch event to the worker at the
// moment the KEP says the kubelet sees it, so every intermediate state can be checked.
//
// Two decorators give the test control over timing without faking anything: HeldRuntime holds
// UpdateContainerResources calls on their way to the real containerd (so a resize can be
// overlapped by the next one), and RecordingStatusWriter records the resourceVersion each
// status patch was built against (so a patch rejected for a stale version shows as rebuilt).
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

#include "embedded/server/cluster.h"
#include "kube/client/rest_client.h"
#include "kube/model/decode.h"
#include "node-agent/allocation/allocation_state.h"
#include "node-agent/allocation/checkpoint.h"
#include "node-agent/allocation/node_agent_metrics.h"
#include "node-agent/allocation/pod_status.h"
#include "node-agent/allocation/resize_manager.h"
#include "node-agent/allocation/resize_manager_cri.h"
#include "node-agent/allocation/resize_manager_loop.h"
#include "node-agent/runtime/node_registration.h"
#include "node-agent/runtime/pod_runtime.h"
#include "tests/embedded/cluster_rest_config.h"
#include "tests/node-agent/containerd/forwarding_runtime.h"
#include "tests/node-agent/containerd/runtime_fixture.h"

namespace tailor::node::testing {

inline constexpr std::chrono::seconds kKepWait{30};

// Forwards to the real runtime; while held, UpdateContainerResources waits for release().
class HeldRuntime : public ForwardingRuntime {
 public:
  explicit HeldRuntime(cri::RuntimeService& inner) : ForwardingRuntime(inner) {}

  void hold() {
    std::lock_guard lock(mutex_);
    holding_ = true;
  }
  void release() {
    {
      std::lock_guard lock(mutex_);
      holding_ = false;
    }
    changed_.notify_all();
  }
  // True once a call is waiting at the hold.
  bool wait_until_held(std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, timeout, [this] { return held_calls_ > 0; });
  }

  void update_container_resources(const std::string& id, const cri::LinuxResources& r) override {
    {
      std::unique_lock lock(mutex_);
      ++held_calls_;
      changed_.notify_all();
      // Bounded, so a failed test cannot hang the worker thread forever.
      changed_.wait_for(lock, std::chrono::seconds(60), [this] { return !holding_; });
      --held_calls_;
    }
    inner_.update_container_resources(id, r);
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  bool holding_ = false;
  int held_calls_ = 0;
};

// Forwards to the real writer; records, per update, the resourceVersions of the pods its patch
// was built against (more than one: the first was stale and the pod was read again).
class RecordingStatusWriter : public allocation::PodStatusWriter {
 public:
  explicit RecordingStatusWriter(allocation::PodStatusWriter& inner) : inner_(inner) {}

  void update(const kube::Pod& cached, const Change& change) override {
    {
      std::lock_guard lock(mutex_);
      builds_.emplace_back();
    }
    inner_.update(cached, [this, &change](const kube::Pod& current) {
      {
        std::lock_guard lock(mutex_);
        builds_.back().push_back(current.metadata.resource_version);
      }
      return change(current);
    });
  }
  void reject(const kube::Pod& pod, const std::string& reason,
              const std::string& message) override {
    inner_.reject(pod, reason, message);
  }

  // The builds of every update that had to rebuild its patch.
  std::vector<std::vector<std::string>> rebuilt() const {
    std::lock_guard lock(mutex_);
    std::vector<std::vector<std::string>> out;
    for (const auto& versions : builds_) {
      if (versions.size() > 1) out.push_back(versions);
    }
    return out;
  }
  void clear() {
    std::lock_guard lock(mutex_);
    builds_.clear();
  }

 private:
  allocation::PodStatusWriter& inner_;
  mutable std::mutex mutex_;
  std::vector<std::vector<std::string>> builds_;
};

class RecordingEvents : public allocation::ResizeEventSink {
 public:
  void event(const kube::Pod& pod, const std::string&, const std::string& reason,
             const std::string&) override {
    std::lock_guard lock(mutex_);
    reasons_[pod.metadata.name].push_back(reason);
  }
  std::vector<std::string> reasons(const std::string& pod) const {
    std::lock_guard lock(mutex_);
    auto it = reasons_.find(pod);
    return it == reasons_.end() ? std::vector<std::string>{} : it->second;
  }

 private:
  mutable std::mutex mutex_;
  std::map<std::string, std::vector<std::string>> reasons_;
};

class FileCheckpoint : public allocation::AllocationCheckpoint {
 public:
  explicit FileCheckpoint(const allocation::CheckpointStore& store) : store_(store) {}
  void save(const allocation::Checkpoint& checkpoint) override { store_.save(checkpoint); }

 private:
  const allocation::CheckpointStore& store_;
};

class KepFlowNode : public RealContainerd {
 protected:
  static constexpr const char* kNode = "kep-node";

  // The node's size; the KEP's numbers assume one that can hold 2 CPUs but not 100.
  virtual kube::ResourceList allocatable() const = 0;

  void SetUp() override {
    RealContainerd::SetUp();
    if (HasFatalFailure()) return;
    char tmpl[] = "/tmp/tailor-kep-flow-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    cluster_ = std::make_unique<embedded::Cluster>(
        embedded::ClusterOptions{.dir = (dir_ / "cluster").string()});
    cluster_->start();
    kube::RestConfig config = embedded::testing::cluster_rest_config(*cluster_);
    config.max_retries = 0;
    client_ = std::make_unique<kube::RestClient>(config);
    registration_ = std::make_unique<runtime::NodeRegistration>(
        *client_, runtime::NodeIdentity{
                      .name = kNode,
                      .allocatable = allocatable(),
                      .runtime_version = "containerd://" + cri_->version().runtime_version});
    registration_->register_node();
    images_ =
        cri::connect_image_service({socket_, std::chrono::seconds(10), std::chrono::seconds(10)});
    pod_api_ = runtime::rest_pod_api(*client_);
    pods_ = std::make_unique<runtime::PodRuntime>(
        *cri_, *images_, *pod_api_,
        runtime::PodRuntimeOptions{.node_name = kNode,
                                   .log_root = (dir_ / "logs").string(),
                                   .volume_root = (dir_ / "pods").string()});
    held_ = std::make_unique<HeldRuntime>(*cri_);
    resources_ = std::make_unique<allocation::CriPodResources>(
        *held_, allocation::CriPodResourcesOptions{kV1});
    rest_status_ = std::make_unique<allocation::RestPodStatusWriter>(*client_);
    status_ = std::make_unique<RecordingStatusWriter>(*rest_status_);
    std::filesystem::create_directories(dir_ / "checkpoint");
    store_ = std::make_unique<allocation::CheckpointStore>(dir_ / "checkpoint");
    checkpoint_ = std::make_unique<FileCheckpoint>(*store_);
    allocation::ResizeManagerOptions options;
    options.node_allocatable = allocatable();
    manager_ = std::make_unique<allocation::ResizeManager>(options, *resources_, *status_, events_,
                                                           *checkpoint_, metrics_);
    // The periodic safety-net retry stays out of the way: every retry here has a cause.
    loop_ = std::make_unique<allocation::ResizeManagerLoop>(*manager_, std::chrono::minutes(10));
    loop_->start();
  }

  void TearDown() override {
    if (held_) held_->release();
    loop_.reset();
    if (pods_) pods_->remove_orphans({});
    pods_.reset();
    manager_.reset();
    registration_.reset();
    client_.reset();
    cluster_.reset();
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }

  kube::ObjectRef ref(const std::string& name, std::string subresource = "") const {
    return kube::ObjectRef{kube::resources::kPods, "default", name, std::move(subresource)};
  }
  kube::Pod get(const std::string& name) { return kube::decode_pod(client_->get(ref(name))); }

  // A one-container pod bound to the node, requesting only `cpu` (as the KEP's pod); returns
  // the pod (JSON) as the API server stored it.
  std::string create_pod(const std::string& name, const std::string& cpu) {
    const std::string body =
        R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
        R"("},"spec":{"nodeName":")" + kNode +
        R"(","terminationGracePeriodSeconds":1,"containers":[{"name":"c","image":"busybox",)"
        R"("command":["sleep","3600"],"resources":{"requests":{"cpu":")" +
        cpu + R"("}}}]}})";
    return client_->create(ref(""), body);
  }

  // A user's resize of container c through pods/{name}/resize; the pod (JSON) as stored after.
  std::string resize_cpu(const std::string& name, const std::string& cpu) {
    const std::string body =
        R"({"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":")" + cpu +
        R"("}}}]}})";
    return client_->patch(ref(name, "resize"), kube::PatchType::StrategicMerge, body);
  }

  // The agent's watch delivers `pod`: the manager syncs it and the pod runtime runs what the
  // manager admitted, on the worker thread, as agent mode does.
  void deliver(const std::string& pod_json) {
    auto pod = std::make_shared<runtime::RuntimePod>(runtime::decode_runtime_pod(pod_json));
    loop_->post([this, pod](allocation::ResizeManager& manager) {
      manager.sync_pod(pod->pod);
      if (const auto allocation = manager.allocation(pod->pod.metadata.uid)) {
        runtime::PodAllocation amounts;
        for (const allocation::AllocatedContainer& c : allocation->containers) {
          amounts[c.name] = allocation::amounts_of(c.resources);
        }
        pods_->sync_pod(*pod, amounts);
      }
    });
  }
  // Waits until the worker has done everything delivered so far.
  void settle() {
    ASSERT_TRUE(loop_->run([](allocation::ResizeManager&) {}, kKepWait)) << "worker stuck";
  }

  // Delivers the pod's events until its container runs and the agent has reported it.
  kube::Pod run_until_running(const std::string& name) {
    const auto deadline = std::chrono::steady_clock::now() + kKepWait;
    while (std::chrono::steady_clock::now() < deadline) {
      deliver(client_->get(ref(name)));
      settle();
      const kube::Pod pod = get(name);
      const kube::ContainerStatus* c = kube::find_container_status(pod.status, "c");
      if (c != nullptr && c->state.running && c->resources) return pod;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    ADD_FAILURE() << name << " never ran";
    return get(name);
  }

  // The pod's deletion as the node sees it: the API delete, the runtime stopping the pod (and
  // removing it from the API when it is still there), then the watch's DELETED event.
  void delete_pod(const std::string& name) {
    runtime::RuntimePod pod = runtime::decode_runtime_pod(client_->get(ref(name)));
    client_->remove(ref(name));
    bool gone = false;
    try {
      pod = runtime::decode_runtime_pod(client_->get(ref(name)));  // with its deletionTimestamp
    } catch (const kube::ApiError& e) {
      if (!e.is_not_found()) throw;
      gone = true;
    }
    pods_->terminate_pod(pod, gone);
    loop_->post([uid = pod.pod.metadata.uid](allocation::ResizeManager& m) { m.remove_pod(uid); });
    settle();
  }

  std::filesystem::path dir_;
  std::unique_ptr<embedded::Cluster> cluster_;
  std::unique_ptr<kube::RestClient> client_;
  std::unique_ptr<runtime::NodeRegistration> registration_;
  std::unique_ptr<cri::ImageService> images_;
  std::unique_ptr<runtime::PodApi> pod_api_;
  std::unique_ptr<runtime::PodRuntime> pods_;
  std::unique_ptr<HeldRuntime> held_;
  std::unique_ptr<allocation::CriPodResources> resources_;
  std::unique_ptr<allocation::RestPodStatusWriter> rest_status_;
  std::unique_ptr<RecordingStatusWriter> status_;
  std::unique_ptr<allocation::CheckpointStore> store_;
  std::unique_ptr<FileCheckpoint> checkpoint_;
  RecordingEvents events_;
  kube::metrics::Registry registry_;
  allocation::NodeAgentMetrics metrics_{registry_};
  std::unique_ptr<allocation::ResizeManager> manager_;
  std::unique_ptr<allocation::ResizeManagerLoop> loop_;

  static inline const cri::CgroupLayout kV1{"/sys/fs/cgroup", cri::CgroupVersion::V1};
};

}  // namespace tailor::node::testing
