// tailor-node-agent: the kubelet-side half of in-place pod resize on one node (see
// node-agent/README.md). With --actuation=agent it registers the node, admits pods and resizes,
// checkpoints the allocation, runs the pods and applies resizes through the CRI and reports them
// in the pod status; with --actuation=kubelet it only watches and reports metrics, writing
// nothing the kubelet owns.
#include <pthread.h>

#include <csignal>
#include <iostream>
#include <memory>

#include "kube/client/config.h"
#include "kube/client/events.h"
#include "kube/client/events_sink.h"
#include "kube/client/informer.h"
#include "kube/client/list_watch.h"
#include "kube/client/rest_client.h"
#include "kube/model/decode.h"
#include "kube/observe/common_options.h"
#include "kube/observe/log.h"
#include "node-agent/allocation/node_agent_metrics.h"
#include "node-agent/main/agent_mode.h"
#include "node-agent/main/agent_options.h"
#include "node-agent/main/usage_reporting.h"

namespace tailor::node {
namespace {

using PodInformer = kube::cache::Informer<kube::Pod>;

sigset_t block_signals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);  // before any thread starts
  return signals;
}

// --actuation=kubelet: the pending and in-progress gauges from the conditions the kubelet sets.
void observe_kubelet(PodInformer& pods, allocation::NodeAgentMetrics& metrics) {
  auto recount = [&pods, &metrics] {
    double deferred = 0, infeasible = 0, in_progress = 0;
    for (const auto& pod : pods.store().list()) {
      if (const kube::PodCondition* c =
              kube::find_condition(pod->status, kube::kPodResizePending)) {
        (c->reason == "Infeasible" ? infeasible : deferred) += 1;
      }
      if (kube::find_condition(pod->status, kube::kPodResizeInProgress)) in_progress += 1;
    }
    metrics.set_pending("deferred", deferred);
    metrics.set_pending("infeasible", infeasible);
    metrics.set_in_progress(in_progress);
  };
  pods.add_handlers({.on_add = [recount](const auto&) { recount(); },
                     .on_update = [recount](const auto&, const auto&) { recount(); },
                     .on_delete = [recount](const auto&, bool) { recount(); }});
}

int run_kubelet_mode(const AgentOptions& options, kube::RestClient& client,
                     allocation::NodeAgentMetrics& metrics, sigset_t signals) {
  kube::cache::InformerOptions informer_options;
  informer_options.name = "pods";
  informer_options.resync_period = std::chrono::minutes(5);
  PodInformer pods(
      std::make_shared<kube::cache::RestListerWatcher>(client, kube::resources::kPods, "", "",
                                                       "spec.nodeName=" + options.node_name),
      [](std::string_view json) { return kube::decode_pod(std::string(json)); }, informer_options);
  pods.set_error_handler([](const std::string& error) { kube::log::error("Pod watch: " + error); });
  observe_kubelet(pods, metrics);
  pods.start();
  UsageReporting usage(options, [&pods] { return pods.store().list(); });
  usage.start();
  kube::log::info("Node agent observing", {{"node", options.node_name}, {"actuation", "kubelet"}});
  wait_for_signal(signals);
  pods.stop();
  return 0;
}

int run(int argc, const char* const argv[]) {
  const sigset_t signals = block_signals();
  kube::config::Schema schema("tailor-node-agent",
                              "Kubelet-side half of in-place pod resize: admission, allocation "
                              "checkpoint, CRI actuation and pod status.");
  kube::observe::CommonOptions common;
  kube::observe::add_common_options(schema, common);
  AgentOptions options;
  add_agent_options(schema, options);
  if (auto code = kube::observe::init_process(schema, common, argc, argv, std::cout, std::cerr)) {
    return *code;
  }
  try {
    validate(options);
  } catch (const kube::config::ConfigError& e) {
    std::cerr << "tailor-node-agent: " << e.what() << "\n";
    return 2;
  }
  kube::RestClient client(kube::load_config(common.kubeconfig));
  allocation::NodeAgentMetrics metrics(kube::metrics::registry());
  kube::health::Checks checks;
  kube::observe::Routes routes;
  auto endpoints =
      kube::observe::start_endpoints(common, kube::metrics::registry(), checks, &routes);
  kube::EventRecorder recorder(std::make_shared<kube::RestEventSink>(client),
                               kube::EventSource{"tailor-node-agent", options.node_name});
  if (options.actuation == Actuation::Agent) {
    // The first endpoint is the metrics one (--metrics-bind-address), unless that is disabled.
    const std::uint16_t port =
        common.metrics_bind_address.disabled || endpoints.empty() ? 0 : endpoints.front()->port();
    return run_agent_mode(options, client, metrics, checks, {routes, port}, recorder, signals);
  }
  return run_kubelet_mode(options, client, metrics, signals);
}

}  // namespace
}  // namespace tailor::node

int main(int argc, char** argv) {
  try {
    return tailor::node::run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "tailor-node-agent: " << e.what() << "\n";
    return 1;
  }
}
