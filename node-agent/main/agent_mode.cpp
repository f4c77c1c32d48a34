#include "node-agent/main/agent_mode.h"

#include <filesystem>
#include <fstream>
#include <future>
#include <mutex>
#include <set>
#include <thread>

#include "kube/client/informer.h"
#include "kube/client/list_watch.h"
#include "kube/http/url.h"
#include "kube/model/decode.h"
#include "kube/observe/log.h"
#include "node-agent/allocation/allocation_state.h"
#include "node-agent/allocation/checkpoint.h"
#include "node-agent/allocation/checkpoint_recovery.h"
#include "node-agent/allocation/pod_status.h"
#include "node-agent/allocation/resize_manager.h"
#include "node-agent/allocation/resize_manager_cri.h"
#include "node-agent/allocation/resize_manager_loop.h"
#include "node-agent/main/checkpoint_recovery_report.h"
#include "node-agent/main/usage_reporting.h"
#include "node-agent/runtime/node_registration.h"
#include "node-agent/runtime/pod_runtime.h"

namespace tailor::node {
namespace {

using PodInformer = kube::cache::Informer<runtime::RuntimePod>;

class FileCheckpoint : public allocation::AllocationCheckpoint {
 public:
  explicit FileCheckpoint(const allocation::CheckpointStore& store) : store_(store) {}
  void save(const allocation::Checkpoint& checkpoint) override { store_.save(checkpoint); }

 private:
  const allocation::CheckpointStore& store_;
};

class RecorderEvents : public allocation::ResizeEventSink {
 public:
  explicit RecorderEvents(kube::EventRecorder& recorder) : recorder_(recorder) {}
  void event(const kube::Pod& pod, const std::string& type, const std::string& reason,
             const std::string& message) override {
    recorder_.event(
        kube::pod_reference(pod.metadata.namespace_, pod.metadata.name, pod.metadata.uid), type,
        reason, message);
  }

 private:
  kube::EventRecorder& recorder_;
};

// --cluster-dns, --cluster-domain and the host's resolver as --resolv-conf names it (read once,
// as the kubelet does at start; unreadable: pods get no host servers, and a log line says why).
runtime::NodeDns node_dns(const AgentOptions& options) {
  runtime::NodeDns out{.cluster_dns = options.cluster_dns,
                       .cluster_domain = options.cluster_domain};
  if (options.resolv_conf.empty()) {
    out.host.reset();
    return out;
  }
  std::ifstream in(options.resolv_conf);
  if (!in) {
    kube::log::error("Cannot read the host's resolver configuration",
                     {{"resolvConf", options.resolv_conf}});
    return out;
  }
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  out.host = runtime::parse_resolv_conf(text);
  return out;
}

// The allocation in the form the pod runtime starts containers with.
runtime::PodAllocation runtime_allocation(const allocation::AllocatedPod& allocation) {
  runtime::PodAllocation out;
  for (const auto* list : {&allocation.containers, &allocation.init_containers}) {
    for (const allocation::AllocatedContainer& c : *list)
      out[c.name] = allocation::amounts_of(c.resources);
  }
  return out;
}

// Pod terminations block for the grace period, so each runs on its own thread.
class Terminations {
 public:
  explicit Terminations(runtime::PodRuntime& runtime) : runtime_(runtime) {}
  ~Terminations() { wait(); }

  void start(const runtime::RuntimePod& pod, bool deleted_from_api) {
    std::lock_guard lock(mutex_);
    if (!active_.insert(pod.pod.metadata.uid).second) return;
    running_.push_back(std::async(std::launch::async, [this, pod, deleted_from_api] {
      try {
        runtime_.terminate_pod(pod, deleted_from_api);
      } catch (const std::exception& e) {
        kube::log::error(
            e, "Terminating pod failed",
            {{"pod", kube::log::kobj(pod.pod.metadata.namespace_, pod.pod.metadata.name)}});
      }
      std::lock_guard lock(mutex_);
      active_.erase(pod.pod.metadata.uid);
    }));
  }
  void wait() {
    std::vector<std::future<void>> running;
    {
      std::lock_guard lock(mutex_);
      running.swap(running_);
    }
    for (auto& f : running) f.wait();
  }

 private:
  runtime::PodRuntime& runtime_;
  std::mutex mutex_;
  std::set<std::string> active_;
  std::vector<std::future<void>> running_;
};

kube::ResourceList node_allocatable(kube::RestClient& client, const AgentOptions& options) {
  if (!options.node_allocatable.empty()) return options.node_allocatable;
  const kube::Node node = kube::decode_node(
      client.get(kube::ObjectRef{kube::resources::kNodes, "", options.node_name, ""}));
  if (node.status.allocatable.empty()) {
    throw std::runtime_error("node " + options.node_name +
                             " has no status.allocatable; pass --node-allocatable");
  }
  return node.status.allocatable;
}

kube::EventObjectRef node_ref(const std::string& node_name) {
  kube::EventObjectRef ref;
  ref.kind = "Node";
  ref.api_version = "v1";
  ref.name = node_name;
  ref.uid = node_name;
  return ref;
}

// The checkpoint, or what is left of it: a corrupt or unknown-version file is moved aside and the
// allocations are rebuilt after the pod list (checkpoint_recovery.h). Only a file that cannot be
// read or moved stops admission: then the agent stays up and not ready, and says why.
std::optional<allocation::LoadedCheckpoint> load_checkpoint(
    const allocation::CheckpointStore& store, const AgentOptions& options,
    allocation::NodeAgentMetrics& metrics, kube::health::Checks& checks,
    kube::EventRecorder& recorder) {
  try {
    allocation::LoadedCheckpoint loaded =
        allocation::load_or_set_aside(store, std::chrono::system_clock::now());
    if (loaded.set_aside) {
      metrics.checkpoint_error(
          loaded.state == allocation::CheckpointState::Corrupt ? "corrupt" : "unknown_version");
      kube::log::warning(
          "The allocation checkpoint cannot be used; kept aside, rebuilding it "
          "from the runtime",
          {{"error", loaded.error}, {"keptAs", loaded.set_aside->string()}});
    }
    return loaded;
  } catch (const allocation::CheckpointError& e) {
    metrics.checkpoint_error(allocation::to_string(e.kind()));
    kube::log::error(
        e, "The allocation checkpoint cannot be read; admitting nothing until it is fixed",
        {{"path", store.path().string()}});
    recorder.event(node_ref(options.node_name), kube::kEventTypeWarning, "CheckpointUnreadable",
                   e.what());
    const std::string reason = e.what();
    checks.add_readyz("allocation-checkpoint", [reason] { throw std::runtime_error(reason); });
    return std::nullopt;
  }
}

// The allocations the checkpoint lacks, rebuilt from what runs. The runtime is asked three times
// (a runtime restarting with the agent); without its view the pod status is the witness left.
allocation::RebuildResult rebuild_missing(cri::RuntimeService& cri,
                                          const allocation::Checkpoint& known,
                                          const std::vector<kube::Pod>& pods) {
  allocation::NodeRuntimeView view;
  for (int attempt = 1;; ++attempt) {
    try {
      view = allocation::observe_runtime(cri);
      break;
    } catch (const std::exception& e) {
      if (attempt == 3) {
        kube::log::error(e, "Listing the runtime's containers failed; rebuilding from pod status");
        break;
      }
      std::this_thread::sleep_for(std::chrono::seconds(1));
    }
  }
  return allocation::rebuild_allocations(known, pods, view);
}

// Everything that runs for the node, in construction order.
struct NodeServices {
  NodeServices(const AgentOptions& options, kube::RestClient& client,
               allocation::NodeAgentMetrics& metrics, kube::EventRecorder& recorder,
               const allocation::CheckpointStore& store)
      : cri(allocation::instrument(cri::connect_runtime_service({options.runtime_endpoint}),
                                   metrics)),
        images(cri::connect_image_service({options.runtime_endpoint})),
        cgroups{options.cgroup_root, detect_cgroup_version(options.cgroup_root)},
        pod_api(runtime::rest_pod_api(client)),
        pod_runtime(*cri, *images, *pod_api, runtime_options(options, cgroups, client, recorder)),
        resources(*cri, {cgroups, options.cgroup_driver, &pod_runtime}),
        status(client),
        events(recorder),
        checkpoint(store),
        terminations(pod_runtime) {}

  // Pods reach the API server at the `kubernetes` Service (read through `client`), as under a
  // kubelet; the agent's own API server URL where there is no such Service.
  static runtime::PodRuntimeOptions runtime_options(const AgentOptions& options,
                                                    cri::CgroupLayout cgroups,
                                                    kube::RestClient& client,
                                                    kube::EventRecorder& recorder) {
    runtime::PodRuntimeOptions out;
    out.node_name = options.node_name;
    out.cgroups = cgroups;
    out.driver = options.cgroup_driver;
    out.log_root = options.pod_log_dir;
    out.volume_root = options.checkpoint_dir + "/pods";
    out.host_path_root = options.host_path_root;
    const kube::http::Url url = kube::http::parse_url(client.config().server);
    out.api_host = url.host;
    out.api_port = url.port;
    out.kubernetes_service = [&client] { return runtime::read_kubernetes_service(client); };
    out.namespace_services = [&client](const std::string& ns) {
      return runtime::read_namespace_services(client, ns);
    };
    out.dns = node_dns(options);
    out.warn = [&recorder](const kube::Pod& pod, const std::string& reason,
                           const std::string& message) {
      recorder.event(
          kube::pod_reference(pod.metadata.namespace_, pod.metadata.name, pod.metadata.uid),
          kube::kEventTypeWarning, reason, message);
    };
    return out;
  }

  std::unique_ptr<cri::RuntimeService> cri;
  std::unique_ptr<cri::ImageService> images;
  cri::CgroupLayout cgroups;
  std::unique_ptr<runtime::PodApi> pod_api;
  // Runs the pods, and restarts a container whose resize needs it (resizePolicy
  // RestartContainer): the resize path below holds it as its restarter.
  runtime::PodRuntime pod_runtime;
  allocation::CriPodResources resources;
  allocation::RestPodStatusWriter status;
  RecorderEvents events;
  FileCheckpoint checkpoint;
  Terminations terminations;
  // Failed pods already seen running nothing (nothing starts a container of a pod that is not
  // allocated, so one look is enough). Touched on the manager loop's thread only.
  std::set<std::string> failed_checked;
};

bool runs_containers(cri::RuntimeService& cri, const std::string& uid) {
  cri::ContainerFilter filter;
  filter.state = cri::ContainerState::Running;
  filter.label_selector["io.kubernetes.pod.uid"] = uid;
  return !cri.list_containers(filter).empty();
}

// A pod marked Failed (rejected at admission, or by whoever wrote its status) runs nothing, as
// with the kubelet: containers that still run are stopped, and the pod stays in the API.
void stop_if_failed(NodeServices& node, const runtime::RuntimePod& pod) {
  const std::string& uid = pod.pod.metadata.uid;
  if (pod.pod.status.phase != "Failed" || node.failed_checked.contains(uid)) return;
  try {
    const bool running = runs_containers(*node.cri, uid);
    node.failed_checked.insert(uid);
    if (!running) return;
  } catch (const std::exception& e) {
    kube::log::error(e, "Listing the containers of a failed pod failed");
    return;
  }
  kube::log::info("Stopping the containers of a failed pod",
                  {{"pod", kube::log::kobj(pod.pod.metadata.namespace_, pod.pod.metadata.name)}});
  node.terminations.start(pod, true);  // true: not deleted from the API
}

// Runs an admitted pod (or terminates a deleted one) after the manager has seen it.
void run_pod(NodeServices& node, allocation::ResizeManager& manager,
             const runtime::RuntimePod& pod) {
  if (!pod.pod.metadata.deletion_timestamp.empty()) {
    node.terminations.start(pod, false);
    return;
  }
  const auto allocation = manager.allocation(pod.pod.metadata.uid);
  if (!allocation) {  // rejected, finished, or not admitted yet
    stop_if_failed(node, pod);
    return;
  }
  try {
    node.pod_runtime.sync_pod(pod, runtime_allocation(*allocation));
  } catch (const std::exception& e) {
    kube::log::error(
        e, "Running pod failed",
        {{"pod", kube::log::kobj(pod.pod.metadata.namespace_, pod.pod.metadata.name)}});
  }
}

runtime::NodeIdentity identity(const AgentOptions& options, const kube::ResourceList& allocatable,
                               cri::RuntimeService& cri, std::uint16_t kubelet_port) {
  runtime::NodeIdentity id;
  id.name = options.node_name;
  id.kubelet_port = kubelet_port;
  id.allocatable = allocatable;
  const cri::RuntimeVersion version = cri.version();
  id.runtime_version = version.runtime_name + "://" + version.runtime_version;
  return id;
}

}  // namespace

void wait_for_signal(sigset_t signals) {
  int received = 0;
  sigwait(&signals, &received);
  kube::log::info("Shutting down", {{"signal", received}});
}

int run_agent_mode(const AgentOptions& options, kube::RestClient& client,
                   allocation::NodeAgentMetrics& metrics, kube::health::Checks& checks,
                   KubeletEndpoint endpoint, kube::EventRecorder& recorder, sigset_t signals) {
  // Created as the kubelet creates its state directories: a fresh node has none yet.
  std::filesystem::create_directories(options.checkpoint_dir);
  const allocation::CheckpointStore store(options.checkpoint_dir);
  const std::optional<allocation::LoadedCheckpoint> checkpoint =
      load_checkpoint(store, options, metrics, checks, recorder);
  if (!checkpoint) {
    wait_for_signal(signals);
    return 1;
  }
  NodeServices node(options, client, metrics, recorder, store);
  allocation::ResizeManagerOptions manager_options;
  manager_options.node_allocatable = node_allocatable(client, options);
  manager_options.admission = {options.cpu_manager_policy, options.memory_manager_policy};
  runtime::NodeRegistration registration(
      client, identity(options, manager_options.node_allocatable, *node.cri, endpoint.port));
  registration.register_node();
  registration.start_heartbeat();
  allocation::ResizeManager manager(manager_options, node.resources, node.status, node.events,
                                    node.checkpoint, metrics);
  allocation::ResizeManagerLoop loop(
      manager, std::chrono::duration_cast<std::chrono::milliseconds>(options.resize_retry_period));
  node.pod_runtime.recover();

  kube::cache::InformerOptions informer_options;
  informer_options.name = "pods";
  informer_options.resync_period = std::chrono::minutes(5);
  PodInformer pods(
      std::make_shared<kube::cache::RestListerWatcher>(client, kube::resources::kPods, "", "",
                                                       "spec.nodeName=" + options.node_name),
      [](std::string_view json) { return runtime::decode_runtime_pod(json); }, informer_options);
  pods.set_error_handler([](const std::string& error) { kube::log::error("Pod watch: " + error); });
  // Events before the restore are covered by the list it reads; after it they follow in order.
  std::mutex mutex;
  bool restored = false;
  auto post = [&](allocation::ResizeManagerLoop::Work work) {
    std::lock_guard lock(mutex);
    if (restored) loop.post(std::move(work));
  };
  auto sync = [&node](const std::shared_ptr<const runtime::RuntimePod>& pod) {
    return [&node, pod](allocation::ResizeManager& m) {
      m.sync_pod(pod->pod);
      run_pod(node, m, *pod);
    };
  };
  pods.add_handlers({.on_add = [&](const auto& pod) { post(sync(pod)); },
                     .on_update = [&](const auto&, const auto& pod) { post(sync(pod)); },
                     .on_delete =
                         [&](const auto& pod, bool) {
                           post([&node, pod](allocation::ResizeManager& m) {
                             m.remove_pod(pod->pod.metadata.uid);
                             node.failed_checked.erase(pod->pod.metadata.uid);
                             node.terminations.start(*pod, true);
                           });
                         }});
  loop.start();
  pods.start();
  while (!pods.wait_for_sync(std::chrono::seconds(5))) {
    kube::log::info("Waiting for the pod list", {{"node", options.node_name}});
  }
  {
    std::lock_guard lock(mutex);
    restored = true;
    std::vector<kube::Pod> listed;
    std::vector<std::string> live;
    for (const auto& pod : pods.store().list()) {
      listed.push_back(pod->pod);
      live.push_back(pod->pod.metadata.uid);
    }
    node.pod_runtime.remove_orphans(live);
    loop.post([&node, &pods, &client, &recorder, &metrics, &options, loaded = *checkpoint,
               listed = std::move(listed)](allocation::ResizeManager& m) {
      // Pods that ran here keep their allocation, observed if not recorded: none is admitted
      // again as new (and failed while its containers run).
      const allocation::RebuildResult rebuilt =
          rebuild_missing(*node.cri, loaded.checkpoint, listed);
      report_recovery(client, recorder, metrics, node.checkpoint, options.node_name, loaded,
                      rebuilt);
      m.restore(rebuilt.checkpoint, listed);
      for (const auto& pod : pods.store().list()) run_pod(node, m, *pod);
    });
  }
  checks.add_readyz("pods-synced", [&pods] {
    if (!pods.has_synced()) throw std::runtime_error("pod informer not synced");
  });
  // Container exits are noticed by syncing every pod periodically, as the kubelet's PLEG does.
  std::atomic<bool> stopping{false};
  std::thread relist([&] {
    while (!stopping) {
      std::this_thread::sleep_for(std::chrono::seconds(2));
      post([&node, &pods](allocation::ResizeManager& m) {
        for (const auto& pod : pods.store().list()) run_pod(node, m, *pod);
      });
    }
  });
  UsageReporting usage(options, [&pods] {
    std::vector<std::shared_ptr<const kube::Pod>> out;
    for (const auto& pod : pods.store().list()) out.emplace_back(pod, &pod->pod);
    return out;
  });
  usage.serve_resource_metrics(endpoint.routes);
  usage.start();
  kube::log::info("Node agent running", {{"node", options.node_name}, {"actuation", "agent"}});
  wait_for_signal(signals);
  stopping = true;
  relist.join();
  pods.stop();
  loop.stop();
  registration.stop_heartbeat();
  return 0;
}

}  // namespace tailor::node
