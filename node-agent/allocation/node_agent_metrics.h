// The node agent's metrics. Resize outcomes follow KEP-1287's Instrumentation
// (tailor_node_resize_requests_total{state}: one proposal per pod resize, whatever the number of
// containers; in steady state proposed = infeasible + completed + canceled, deferred is not an
// end state) and the kubelet 1.34 metrics that replaced it, under Tailor's prefix. CRI calls are
// timed and their errors counted by operation (InstrumentedRuntimeService).
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>

#include "kube/observe/metrics.h"
#include "node-agent/cri/cri_client.h"

namespace tailor::node::allocation {

enum class ResizeState { Proposed, Infeasible, Deferred, Completed, Canceled };
std::string_view to_string(ResizeState state);

// Why a pending resize was retried (kubelet_pod_deferred_accepted_resizes_total{retry_trigger}).
enum class RetryTrigger { PodRemoved, PodResizedDown, ResizeCompleted, Periodic, Restart };
std::string_view to_string(RetryTrigger trigger);

class NodeAgentMetrics {
 public:
  explicit NodeAgentMetrics(kube::metrics::Registry& registry);

  void resize(ResizeState state);
  // resource "cpu" | "memory", requirement "requests" | "limits",
  // operation "add" | "remove" | "increase" | "decrease".
  void requested_resize(std::string_view resource, std::string_view requirement,
                        std::string_view operation);
  void resize_duration(std::chrono::milliseconds duration, bool success);
  void set_pending(std::string_view reason, double count);  // "deferred" | "infeasible"
  void set_in_progress(double count);
  void infeasible(std::string_view reason_detail);  // "insufficient_node_allocatable", ...
  void deferred_accepted(RetryTrigger trigger);
  void checkpoint_error(std::string_view kind);
  // Pod allocations rebuilt at start from what runs; reason as the node condition's
  // (CheckpointCorrupt, CheckpointUnknownVersion, CheckpointMissing, CheckpointIncomplete).
  void allocations_rebuilt(std::string_view reason, double pods);
  void cri_operation(std::string_view operation, std::chrono::nanoseconds latency, bool error);

  double resize_count(ResizeState state) const;
  double cri_errors(std::string_view operation) const;
  double checkpoint_errors(std::string_view kind) const;
  double rebuilt_allocations(std::string_view reason) const;

 private:
  kube::metrics::Vec<prometheus::Counter> resize_requests_;
  kube::metrics::Vec<prometheus::Counter> requested_resizes_;
  kube::metrics::HistogramVec resize_duration_;
  kube::metrics::Vec<prometheus::Gauge> pending_;
  kube::metrics::Vec<prometheus::Gauge> in_progress_;
  kube::metrics::Vec<prometheus::Counter> infeasible_;
  kube::metrics::Vec<prometheus::Counter> deferred_accepted_;
  kube::metrics::Vec<prometheus::Counter> checkpoint_errors_;
  kube::metrics::Vec<prometheus::Counter> rebuilt_allocations_;
  kube::metrics::HistogramVec cri_duration_;
  kube::metrics::Vec<prometheus::Counter> cri_errors_;
};

// A RuntimeService that times every call and counts its errors, then delegates.
std::unique_ptr<cri::RuntimeService> instrument(std::unique_ptr<cri::RuntimeService> runtime,
                                                NodeAgentMetrics& metrics);

}  // namespace tailor::node::allocation
