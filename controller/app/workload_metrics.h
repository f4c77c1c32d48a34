// tailor_workload_* metrics: per workload container under a policy, what Tailor recommends
// (target, bounds, uncapped target), what the container used in the windows received since the
// pass before (mean and peak over the workload's pods), what its pods request and are limited to
// (as the runtime reports, else the spec), and what happened to it (OOM kills, CPU shortfall,
// resizes, recreations). Labels follow kube-state-metrics' VPA series: namespace, target_kind,
// target_name, container, resource, unit; never a pod, so the series count is per workload
// container. Workloads without a policy have none; a policy's series go with it.
#pragma once

#include <prometheus/collectable.h>

#include <limits>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace tailor::controller {

// cpu in cores, memory in bytes; NaN where the resource has no value (no series then).
struct ResourceValues {
  double cpu = std::numeric_limits<double>::quiet_NaN();
  double memory = std::numeric_limits<double>::quiet_NaN();
};

// What a pass knows of one container of a workload.
struct ContainerFacts {
  std::string container;
  ResourceValues target, lower_bound, upper_bound, uncapped_target;
  ResourceValues requests, limits;  // the largest over the workload's pods
  double pods = 0;                  // pods of the workload running this container
};

// A policy's workload (its target) and its containers as the pass saw them.
struct WorkloadFacts {
  std::string ns, kind, name;
  std::vector<ContainerFacts> containers;
};

// By policy key ("namespace/name").
using PassWorkloads = std::unordered_map<std::string, WorkloadFacts>;

// One usage window of a pod under a policy, as the workload's series count it.
struct WorkloadWindow {
  double cpu_mean = 0, cpu_peak = 0, memory_mean = 0, memory_peak = 0;
  double cpu_request = 0;  // of the pod's container, for the shortfall
  double seconds = 0;      // the window's length
};

class WorkloadMetrics : public prometheus::Collectable {
 public:
  // The pass's workloads: those of policies not in `workloads` lose their series. Usage windows
  // received since the previous pass become the usage gauges (kept when none came); counters
  // carry over while the policy keeps its target and the container stays.
  void pass(PassWorkloads workloads);
  void window(const std::string& policy, const std::string& container, const WorkloadWindow& w);
  // An OOM kill fed to the models (from the pod's status or the agent's counter, once).
  void oom_kill(const std::string& policy, const std::string& container);
  // A resize requested, or a recreation (eviction) accepted, of a pod of the policy: counted
  // for each of the workload's containers.
  void action(const std::string& policy, bool recreation);

  std::vector<prometheus::MetricFamily> Collect() const override;
  std::size_t series() const;  // workload containers served

 private:
  struct Usage {
    double cpu_sum = 0, cpu_peak = 0, memory_sum = 0, memory_peak = 0, windows = 0;
  };
  struct Row {
    ContainerFacts facts;
    Usage last, pending;  // of the last pass that had windows; since the last pass
    double ooms = 0, shortfall = 0, resizes = 0, recreations = 0;
  };
  struct Workload {
    std::string ns, kind, name;
    std::vector<Row> rows;
  };
  Row* row(const std::string& policy, const std::string& container);

  mutable std::mutex mutex_;
  std::unordered_map<std::string, Workload> workloads_;  // by policy key
};

// The process-wide instance, added to kube::metrics::registry() as a collector on first use.
WorkloadMetrics& workload_metrics();

}  // namespace tailor::controller
