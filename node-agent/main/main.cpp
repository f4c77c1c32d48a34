// tailor-node-agent: the kubelet-side half of in-place pod resize on one node (see
// node-agent/README.md). With --actuation=agent it admits pods and resizes, checkpoints the
// allocation, applies resizes through the CRI and reports them in the pod status; with
// --actuation=kubelet it only watches and reports metrics, writing nothing the kubelet owns.
#include <pthread.h>

#include <csignal>
#include <iostream>
#include <memory>
#include <mutex>

#include "controller/kube/client/config.h"
#include "controller/kube/client/events.h"
#include "controller/kube/client/events_sink.h"
#include "controller/kube/client/informer.h"
#include "controller/kube/client/list_watch.h"
#include "controller/kube/client/rest_client.h"
#include "controller/kube/model/decode.h"
#include "controller/kube/observe/common_options.h"
#include "controller/kube/observe/log.h"
#include "node-agent/agent_options.h"
#include "node-agent/checkpoint.h"
#include "node-agent/node_agent_metrics.h"
#include "node-agent/pod_status.h"
#include "node-agent/resize_manager.h"
#include "node-agent/resize_manager_cri.h"
#include "node-agent/resize_manager_loop.h"

namespace tailor::kube::node {
namespace {

using PodInformer = cache::Informer<Pod>;

class FileCheckpoint : public AllocationCheckpoint {
 public:
  explicit FileCheckpoint(const CheckpointStore& store) : store_(store) {}
  void save(const Checkpoint& checkpoint) override { store_.save(checkpoint); }

 private:
  const CheckpointStore& store_;
};

class RecorderEvents : public ResizeEventSink {
 public:
  explicit RecorderEvents(EventRecorder& recorder) : recorder_(recorder) {}
  void event(const Pod& pod, const std::string& type, const std::string& reason,
             const std::string& message) override {
    EventObjectRef ref;
    ref.kind = "Pod";
    ref.api_version = "v1";
    ref.namespace_ = pod.metadata.namespace_;
    ref.name = pod.metadata.name;
    ref.uid = pod.metadata.uid;
    recorder_.event(ref, type, reason, message);
  }

 private:
  EventRecorder& recorder_;
};

sigset_t block_signals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);  // before any thread starts
  return signals;
}

void wait_for_signal(sigset_t signals) {
  int received = 0;
  sigwait(&signals, &received);
  log::info("Shutting down", {{"signal", received}});
}

ResourceList node_allocatable(RestClient& client, const AgentOptions& options) {
  if (!options.node_allocatable.empty()) return options.node_allocatable;
  const Node node =
      decode_node(client.get(ObjectRef{resources::kNodes, "", options.node_name, ""}));
  if (node.status.allocatable.empty()) {
    throw std::runtime_error("node " + options.node_name +
                             " has no status.allocatable; pass --node-allocatable");
  }
  return node.status.allocatable;
}

EventObjectRef node_ref(const std::string& node_name) {
  EventObjectRef ref;
  ref.kind = "Node";
  ref.api_version = "v1";
  ref.name = node_name;
  ref.uid = node_name;
  return ref;
}

// --actuation=kubelet: the pending and in-progress gauges from the conditions the kubelet sets.
void observe_kubelet(PodInformer& pods, NodeAgentMetrics& metrics) {
  auto recount = [&pods, &metrics] {
    double deferred = 0, infeasible = 0, in_progress = 0;
    for (const auto& pod : pods.store().list()) {
      if (const PodCondition* c = find_condition(pod->status, kPodResizePending)) {
        (c->reason == "Infeasible" ? infeasible : deferred) += 1;
      }
      if (find_condition(pod->status, kPodResizeInProgress)) in_progress += 1;
    }
    metrics.set_pending("deferred", deferred);
    metrics.set_pending("infeasible", infeasible);
    metrics.set_in_progress(in_progress);
  };
  pods.add_handlers({.on_add = [recount](const auto&) { recount(); },
                     .on_update = [recount](const auto&, const auto&) { recount(); },
                     .on_delete = [recount](const auto&, bool) { recount(); }});
}

int run_agent(const AgentOptions& options, RestClient& client, PodInformer& pods,
              NodeAgentMetrics& metrics, health::Checks& checks, EventRecorder& recorder,
              sigset_t signals) {
  CheckpointStore store(options.checkpoint_dir);
  std::optional<Checkpoint> checkpoint;
  try {
    checkpoint = store.load();
  } catch (const CheckpointError& e) {
    // Never start from an empty node over a damaged record: that could overcommit it. The agent
    // stays up, not ready, so the error is visible in /readyz, the metric, the log and an event.
    metrics.checkpoint_error(to_string(e.kind()));
    log::error(e, "The allocation checkpoint cannot be used; admitting nothing until it is fixed",
               {{"path", store.path().string()}});
    recorder.event(node_ref(options.node_name), kEventTypeWarning, "CheckpointCorrupt", e.what());
    const std::string reason = e.what();
    checks.add_readyz("allocation-checkpoint", [reason] { throw std::runtime_error(reason); });
    wait_for_signal(signals);
    return 1;
  }
  auto cri = instrument(connect_runtime_service({options.runtime_endpoint}), metrics);
  CriPodResources runtime(*cri, {{options.cgroup_root, detect_cgroup_version(options.cgroup_root)},
                                 options.cgroup_driver});
  RestPodStatusWriter status(client);
  RecorderEvents events(recorder);
  FileCheckpoint file(store);
  ResizeManagerOptions manager_options;
  manager_options.node_allocatable = node_allocatable(client, options);
  manager_options.admission = {options.cpu_manager_policy, options.memory_manager_policy};
  ResizeManager manager(manager_options, runtime, status, events, file, metrics);
  ResizeManagerLoop loop(
      manager, std::chrono::duration_cast<std::chrono::milliseconds>(options.resize_retry_period));

  // Events before the restore are covered by the list it reads; after it they follow in order.
  std::mutex mutex;
  bool restored = false;
  auto post = [&](ResizeManagerLoop::Work work) {
    std::lock_guard lock(mutex);
    if (restored) loop.post(std::move(work));
  };
  pods.add_handlers(
      {.on_add = [&](const auto& pod) { post([pod](ResizeManager& m) { m.sync_pod(*pod); }); },
       .on_update = [&](const auto&,
                        const auto& pod) { post([pod](ResizeManager& m) { m.sync_pod(*pod); }); },
       .on_delete =
           [&](const auto& pod, bool) {
             post([uid = pod->metadata.uid](ResizeManager& m) { m.remove_pod(uid); });
           }});
  loop.start();
  pods.start();
  while (!pods.wait_for_sync(std::chrono::seconds(5))) {
    log::info("Waiting for the pod list", {{"node", options.node_name}});
  }
  {
    std::lock_guard lock(mutex);
    restored = true;
    std::vector<Pod> listed;
    for (const auto& pod : pods.store().list()) listed.push_back(*pod);
    loop.post([checkpoint = checkpoint.value_or(Checkpoint{}),
               listed = std::move(listed)](ResizeManager& m) { m.restore(checkpoint, listed); });
  }
  checks.add_readyz("pods-synced", [&pods] {
    if (!pods.has_synced()) throw std::runtime_error("pod informer not synced");
  });
  log::info("Node agent running", {{"node", options.node_name}, {"actuation", "agent"}});
  wait_for_signal(signals);
  pods.stop();
  loop.stop();
  return 0;
}

int run(int argc, const char* const argv[]) {
  const sigset_t signals = block_signals();
  config::Schema schema("tailor-node-agent",
                        "Kubelet-side half of in-place pod resize: admission, allocation "
                        "checkpoint, CRI actuation and pod status.");
  observe::CommonOptions common;
  observe::add_common_options(schema, common);
  AgentOptions options;
  add_agent_options(schema, options);
  if (auto code = observe::init_process(schema, common, argc, argv, std::cout, std::cerr)) {
    return *code;
  }
  try {
    validate(options);
  } catch (const config::ConfigError& e) {
    std::cerr << "tailor-node-agent: " << e.what() << "\n";
    return 2;
  }
  RestClient client(load_config(common.kubeconfig));
  NodeAgentMetrics metrics(metrics::registry());
  health::Checks checks;
  auto endpoints = observe::start_endpoints(common, metrics::registry(), checks);
  EventRecorder recorder(std::make_shared<RestEventSink>(client),
                         EventSource{"tailor-node-agent", options.node_name});
  cache::InformerOptions informer_options;
  informer_options.name = "pods";
  informer_options.resync_period = std::chrono::minutes(5);
  PodInformer pods(
      std::make_shared<cache::RestListerWatcher>(client, resources::kPods, "", "",
                                                 "spec.nodeName=" + options.node_name),
      [](std::string_view json) { return decode_pod(std::string(json)); }, informer_options);
  pods.set_error_handler([](const std::string& error) { log::error("Pod watch: " + error); });
  if (options.actuation == Actuation::Agent) {
    return run_agent(options, client, pods, metrics, checks, recorder, signals);
  }
  observe_kubelet(pods, metrics);
  pods.start();
  log::info("Node agent observing", {{"node", options.node_name}, {"actuation", "kubelet"}});
  wait_for_signal(signals);
  pods.stop();
  return 0;
}

}  // namespace
}  // namespace tailor::kube::node

int main(int argc, char** argv) {
  try {
    return tailor::kube::node::run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "tailor-node-agent: " << e.what() << "\n";
    return 1;
  }
}
