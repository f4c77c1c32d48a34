// tailor_workload_* series: per workload container under a policy, what Tailor recommends
// (target, bounds, and the uncapped target where the policy's bounds changed it), what the
// container uses (mean and peak over its pods' latest sample periods), what its pods request
// and are limited to (as the runtime reports, else the spec; the largest over the pods), how
// many pods run it, and what happened to it (OOM kills, CPU shortfall, in-place resizes), plus
// the workload's recreations. Labels follow kube-state-metrics' VPA series: namespace,
// target_kind, target_name, container, resource, unit; never a pod, so the series count is per
// workload container. Workloads without a policy have none.
//
// Built at scrape time from what the controller holds anyway (the policies' statuses, the pods
// and their assignment, the models' folds and counts) and written straight in the text format:
// a pass does nothing for them.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <unordered_map>
#include <vector>

#include "controller/app/reconcile.h"
#include "controller/recommendation/model_registry.h"

namespace tailor::controller {

class WorkloadSeries {
 public:
  // cpu in cores, memory in bytes; NaN where the resource has no value (no series then).
  struct Values {
    double cpu = std::numeric_limits<double>::quiet_NaN();
    double memory = std::numeric_limits<double>::quiet_NaN();
  };
  struct Container {
    std::string name;
    Values target, lower_bound, upper_bound, uncapped_target;
    Values requests, limits;  // the largest over the workload's pods
    int pods = 0;             // pods of the workload running this container
    recommendation::ContainerActivity activity{};
  };
  struct Workload {
    std::string ns, kind, name;
    std::vector<Container> containers;
    std::uint64_t recreations = 0;
    // The last pod added (compact_pod.h: replicas share their spec and status until one is
    // resized or killed): a pod sharing both adds only to the counts.
    const void* last_spec = nullptr;
    const void* last_status = nullptr;
  };

  // The workloads of the valid, claimed policies with a target, each with the recommendation
  // its policy's status holds.
  explicit WorkloadSeries(const std::vector<PolicyObject>& policies);
  // A pod the controller assigned to `policy` (a policy not above is ignored).
  void add_pod(const std::string& policy, const actuator::PodFacts& pod);
  void add_model(const recommendation::ContainerModelKey& key,
                 const recommendation::ContainerActivity& activity);
  void add_recreations(const std::string& policy, std::uint64_t count);
  bool has(const std::string& policy) const { return workloads_.contains(policy); }
  const std::unordered_map<std::string, Workload>& workloads() const { return workloads_; }

  // The families, in the text exposition format, appended to `out`.
  void write(std::string& out) const;

 private:
  std::unordered_map<std::string, Workload> workloads_;  // by policy key
};

// The process's /metrics (kube::metrics::registry()) shows the series that `write` appends,
// for as long as `owner` serves them: the last to call serve_workload_series, until it calls
// stop_serving_workload_series (which waits for a scrape writing them to finish).
void serve_workload_series(const void* owner, std::function<void(std::string&)> write);
void stop_serving_workload_series(const void* owner);

}  // namespace tailor::controller
