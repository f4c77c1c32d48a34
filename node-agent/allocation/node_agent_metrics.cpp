#include "node-agent/allocation/node_agent_metrics.h"

namespace tailor::node::allocation {
namespace {

kube::metrics::Opts node_opts(std::string name, std::string help) {
  return kube::metrics::Opts{.subsystem = "node", .name = std::move(name), .help = std::move(help)};
}

class InstrumentedRuntimeService : public cri::RuntimeService {
 public:
  InstrumentedRuntimeService(std::unique_ptr<cri::RuntimeService> inner, NodeAgentMetrics& metrics)
      : inner_(std::move(inner)), metrics_(metrics) {}

  cri::RuntimeVersion version() override {
    return timed("version", [&] { return inner_->version(); });
  }
  std::string run_pod_sandbox(const cri::PodSandboxSpec& sandbox) override {
    return timed("run_podsandbox", [&] { return inner_->run_pod_sandbox(sandbox); });
  }
  void stop_pod_sandbox(const std::string& id) override {
    timed("stop_podsandbox", [&] { inner_->stop_pod_sandbox(id); });
  }
  void remove_pod_sandbox(const std::string& id) override {
    timed("remove_podsandbox", [&] { inner_->remove_pod_sandbox(id); });
  }
  cri::SandboxStatus pod_sandbox_status(const std::string& id) override {
    return timed("podsandbox_status", [&] { return inner_->pod_sandbox_status(id); });
  }
  std::int32_t exec_sync(const std::string& id, const std::vector<std::string>& command,
                         std::chrono::seconds timeout) override {
    return timed("exec_sync", [&] { return inner_->exec_sync(id, command, timeout); });
  }
  std::vector<cri::SandboxStatus> list_pod_sandboxes(
      const std::map<std::string, std::string>& labels) override {
    return timed("list_podsandbox", [&] { return inner_->list_pod_sandboxes(labels); });
  }
  std::string create_container(const std::string& sandbox_id, const cri::ContainerSpec& container,
                               const cri::PodSandboxSpec& sandbox) override {
    return timed("create_container",
                 [&] { return inner_->create_container(sandbox_id, container, sandbox); });
  }
  void start_container(const std::string& id) override {
    timed("start_container", [&] { inner_->start_container(id); });
  }
  void stop_container(const std::string& id, std::int64_t grace) override {
    timed("stop_container", [&] { inner_->stop_container(id, grace); });
  }
  void remove_container(const std::string& id) override {
    timed("remove_container", [&] { inner_->remove_container(id); });
  }
  std::vector<cri::ContainerSummary> list_containers(const cri::ContainerFilter& filter) override {
    return timed("list_containers", [&] { return inner_->list_containers(filter); });
  }
  cri::ContainerStatus container_status(const std::string& id) override {
    return timed("container_status", [&] { return inner_->container_status(id); });
  }
  void update_container_resources(const std::string& id, const cri::LinuxResources& r) override {
    timed("container_update", [&] { inner_->update_container_resources(id, r); });
  }
  cri::SandboxUpdateOutcome update_pod_sandbox_resources(const std::string& id,
                                                         const cri::LinuxResources& r) override {
    return timed("update_podsandbox_resources",
                 [&] { return inner_->update_pod_sandbox_resources(id, r); });
  }

 private:
  // Operation names as the kubelet's runtime_operations_* metrics label them.
  template <class F>
  auto timed(std::string_view operation, F&& call) -> decltype(call()) {
    const auto start = std::chrono::steady_clock::now();
    try {
      if constexpr (std::is_void_v<decltype(call())>) {
        call();
        record(operation, start, false);
      } else {
        auto result = call();
        record(operation, start, false);
        return result;
      }
    } catch (...) {
      record(operation, start, true);
      throw;
    }
  }
  void record(std::string_view operation, std::chrono::steady_clock::time_point start, bool error) {
    metrics_.cri_operation(operation, std::chrono::steady_clock::now() - start, error);
  }

  std::unique_ptr<cri::RuntimeService> inner_;
  NodeAgentMetrics& metrics_;
};

}  // namespace

std::string_view to_string(ResizeState state) {
  switch (state) {
    case ResizeState::Proposed:
      return "proposed";
    case ResizeState::Infeasible:
      return "infeasible";
    case ResizeState::Deferred:
      return "deferred";
    case ResizeState::Completed:
      return "completed";
    case ResizeState::Canceled:
      return "canceled";
  }
  return "proposed";
}

std::string_view to_string(RetryTrigger trigger) {
  switch (trigger) {
    case RetryTrigger::PodRemoved:
      return "pod_removed";
    case RetryTrigger::PodResizedDown:
      return "pod_resized_down";
    case RetryTrigger::ResizeCompleted:
      return "resize_completed";
    case RetryTrigger::Periodic:
      return "periodic";
    case RetryTrigger::Restart:
      return "restart";
  }
  return "periodic";
}

NodeAgentMetrics::NodeAgentMetrics(kube::metrics::Registry& registry)
    : resize_requests_(registry.counter(
          node_opts("resize_requests_total",
                    "Pod resize requests seen by the node agent, by state transition (proposed, "
                    "infeasible, deferred, completed, canceled); one per pod resize."))),
      requested_resizes_(registry.counter(node_opts(
          "container_requested_resizes_total",
          "Container resource changes requested, by resource, requirement and operation."))),
      resize_duration_(registry.histogram(
          node_opts("pod_resize_duration_milliseconds",
                    "Time from accepting a pod resize until the runtime holds it."),
          kube::metrics::exponential_buckets(1, 2, 16))),
      pending_(registry.gauge(
          node_opts("pod_pending_resizes", "Pod resizes pending on this node, by reason."))),
      in_progress_(registry.gauge(
          node_opts("pod_in_progress_resizes", "Pod resizes accepted and not yet actuated."))),
      infeasible_(registry.counter(
          node_opts("pod_infeasible_resizes_total", "Infeasible pod resizes, by reason."))),
      deferred_accepted_(registry.counter(
          node_opts("pod_deferred_accepted_resizes_total",
                    "Deferred pod resizes accepted on a retry, by what triggered the retry."))),
      checkpoint_errors_(registry.counter(
          node_opts("checkpoint_errors_total",
                    "Allocation checkpoint failures (corrupt, unknown_version, io)."))),
      rebuilt_allocations_(registry.counter(node_opts(
          "rebuilt_allocations_total",
          "Pod allocations rebuilt at start from the runtime and the pod status, by why the "
          "checkpoint did not hold them."))),
      cri_duration_(registry.histogram(
          node_opts("cri_operation_duration_seconds", "CRI call latency, by operation."),
          kube::metrics::exponential_buckets(0.0005, 2, 16))),
      cri_errors_(registry.counter(
          node_opts("cri_operation_errors_total", "Failed CRI calls, by operation."))) {
  for (auto state : {ResizeState::Proposed, ResizeState::Infeasible, ResizeState::Deferred,
                     ResizeState::Completed, ResizeState::Canceled}) {
    resize_requests_.with({{"state", std::string(to_string(state))}});
  }
  set_pending("deferred", 0);
  set_pending("infeasible", 0);
  set_in_progress(0);
}

void NodeAgentMetrics::resize(ResizeState state) {
  resize_requests_.with({{"state", std::string(to_string(state))}}).Increment();
}

void NodeAgentMetrics::requested_resize(std::string_view resource, std::string_view requirement,
                                        std::string_view operation) {
  requested_resizes_
      .with({{"resource", std::string(resource)},
             {"requirement", std::string(requirement)},
             {"operation", std::string(operation)}})
      .Increment();
}

void NodeAgentMetrics::resize_duration(std::chrono::milliseconds duration, bool success) {
  resize_duration_.with({{"success", success ? "true" : "false"}})
      .Observe(static_cast<double>(duration.count()));
}

void NodeAgentMetrics::set_pending(std::string_view reason, double count) {
  pending_.with({{"reason", std::string(reason)}}).Set(count);
}

void NodeAgentMetrics::set_in_progress(double count) { in_progress_.with().Set(count); }

void NodeAgentMetrics::infeasible(std::string_view reason_detail) {
  infeasible_.with({{"reason_detail", std::string(reason_detail)}}).Increment();
}

void NodeAgentMetrics::deferred_accepted(RetryTrigger trigger) {
  deferred_accepted_.with({{"retry_trigger", std::string(to_string(trigger))}}).Increment();
}

void NodeAgentMetrics::checkpoint_error(std::string_view kind) {
  checkpoint_errors_.with({{"kind", std::string(kind)}}).Increment();
}

void NodeAgentMetrics::allocations_rebuilt(std::string_view reason, double pods) {
  rebuilt_allocations_.with({{"reason", std::string(reason)}}).Increment(pods);
}

void NodeAgentMetrics::cri_operation(std::string_view operation, std::chrono::nanoseconds latency,
                                     bool error) {
  const prometheus::Labels labels{{"operation", std::string(operation)}};
  cri_duration_.with(labels).Observe(std::chrono::duration<double>(latency).count());
  if (error) cri_errors_.with(labels).Increment();
}

double NodeAgentMetrics::resize_count(ResizeState state) const {
  return resize_requests_.with({{"state", std::string(to_string(state))}}).Value();
}

double NodeAgentMetrics::cri_errors(std::string_view operation) const {
  return cri_errors_.with({{"operation", std::string(operation)}}).Value();
}

double NodeAgentMetrics::checkpoint_errors(std::string_view kind) const {
  return checkpoint_errors_.with({{"kind", std::string(kind)}}).Value();
}

double NodeAgentMetrics::rebuilt_allocations(std::string_view reason) const {
  return rebuilt_allocations_.with({{"reason", std::string(reason)}}).Value();
}

std::unique_ptr<cri::RuntimeService> instrument(std::unique_ptr<cri::RuntimeService> runtime,
                                                NodeAgentMetrics& metrics) {
  return std::make_unique<InstrumentedRuntimeService>(std::move(runtime), metrics);
}

}  // namespace tailor::node::allocation
