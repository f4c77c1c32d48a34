// tailor_workload_* metrics: per workload container under a policy, what Tailor recommends
// (target, bounds, uncapped target), what the container used in the last pass's windows (mean and
// peak over the workload's pods), what its pods request and are limited to (as the runtime
// reports, else the spec), and what happened to it (OOM kills, CPU shortfall, resizes,
// recreations). Labels follow kube-state-metrics' VPA series: namespace, target_kind,
// target_name, container, resource, unit; never a pod, so the series count is per workload
// container. Workloads without a policy have none; a policy's series go with it.
#pragma once

#include <prometheus/collectable.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

namespace tailor::controller {

// A workload container's series: (namespace, target kind, target name, container).
struct WorkloadContainer {
  std::string ns, kind, name, container;
  auto operator<=>(const WorkloadContainer&) const = default;
};

// cpu in cores, memory in bytes; a resource without a value is not in the map.
using ResourceValues = std::map<std::string, double>;  // "cpu" / "memory" -> value

// What a pass knows of one workload container.
struct WorkloadFacts {
  ResourceValues target, lower_bound, upper_bound, uncapped_target;
  ResourceValues requests, limits;  // the largest over the workload's pods
  double pods = 0;                  // pods of the workload running this container
};

// One usage window of a pod under a policy, as the workload's series count it.
struct WorkloadWindow {
  double cpu_mean = 0, cpu_peak = 0, memory_mean = 0, memory_peak = 0;
  double cpu_request = 0;  // of the pod's container, for the shortfall
  double seconds = 0;      // the window's length
};

class WorkloadMetrics : public prometheus::Collectable {
 public:
  // The pass's facts: the series of workload containers not in `facts` are dropped. Usage
  // windows received since the previous pass become the usage gauges (kept when none came).
  // `workload_of_policy` maps a policy key to its target's (namespace, kind, name).
  void pass(std::map<WorkloadContainer, WorkloadFacts> facts,
            const std::map<std::string, std::tuple<std::string, std::string, std::string>>&
                workload_of_policy);
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
    WorkloadFacts facts;
    Usage last;  // of the last pass that had windows
    double ooms = 0, shortfall = 0, resizes = 0, recreations = 0;
  };
  mutable std::mutex mutex_;
  std::map<WorkloadContainer, Row> rows_;
  std::map<WorkloadContainer, Usage> pending_;  // windows since the last pass
  std::map<std::string, std::tuple<std::string, std::string, std::string>> workload_of_policy_;
  Row* row(const std::string& policy, const std::string& container);
};

// The process-wide instance, added to kube::metrics::registry() as a collector on first use.
WorkloadMetrics& workload_metrics();

}  // namespace tailor::controller
