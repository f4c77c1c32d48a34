// `tailor report`'s rows: per workload under a VerticalScalingPolicy or VPA object, per
// container, what it runs at now (the pods' spec), what the policy's status recommends, the
// history behind that (the policy's checkpoint), its OOM kills and restarts, and what the change
// would cost a month. Pure: the command (cli/report_command.cpp) reads the cluster and hands the
// objects in.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "kube/model/pod.h"
#include "kube/model/time.h"
#include "policy/effective.h"
#include "policy/target_ref.h"

namespace tailor::cli {

// Prices per core-hour and per GiB-hour. The defaults are Google Compute Engine's on-demand E2
// prices in us-central1 (vCPU $0.021811/h, memory $0.002923/GiB-h), a common public baseline.
struct Prices {
  double cpu_core_hour = 0.021811;
  double memory_gib_hour = 0.002923;
};
// 365 days * 24 h / 12, the month cloud price lists use.
inline constexpr double kHoursPerMonth = 730;
inline constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// One resource of one container: cores for cpu, bytes for memory; unset when not known (no pod
// runs, no request set, no recommendation yet).
struct ResourceFigures {
  std::optional<double> request{}, limit{};
  std::optional<double> target{}, lower_bound{}, upper_bound{};
  // target - request (a missing request counts as 0: nothing is reserved for it today).
  std::optional<double> change() const;
};

// How much usage the recommendation rests on: the policy's checkpoint of that container.
struct SampleHistory {
  double days = 0;  // lastSampleStart - firstSampleStart
  std::int64_t samples = 0;
};

struct ContainerRow {
  std::string ns{};
  std::string workload_kind{}, workload_name{};  // targetRef; kind "Pods" for a selector
  std::string policy_kind{}, policy_name{};
  std::string container{};
  int pods = 0;  // the pods the policy acts on
  ResourceFigures cpu{}, memory{};
  std::optional<SampleHistory> history{};  // unset: no checkpoint written yet
  int oom_kills_last_day = 0;              // terminations with reason OOMKilled in the last 24 h
  // CPU used beyond the request in the last 24 h, core-seconds, as the controller counts it
  // (cli/policy_shortfall.h); unset without --prometheus or without the controller's series.
  std::optional<double> cpu_shortfall_last_day{};
  int restarts = 0;    // restartCount, summed over the pods
  std::string note{};  // e.g. the policy's target is gone
};

// The monthly cost of moving the pods' requests to the target, per resource and in total; unset
// when there is no target (or no pod) to price.
struct CostChange {
  std::optional<double> cpu{}, memory{};
  std::optional<double> total() const;
};
CostChange monthly_cost_change(const ContainerRow& row, const Prices& prices);

// A policy as read: its effective form (defaults applied), its status, and its kind's name.
struct ReportPolicy {
  policy::EffectivePolicy effective{};
  policy::PolicyStatus status{};
  std::string note{};  // what is wrong with it, e.g. VPA's "Cannot read targetRef. ..." message
};

// Checkpoint histories by history_key().
using HistoryIndex = std::map<std::string, SampleHistory>;
std::string history_key(policy::PolicyApi api, const std::string& ns, const std::string& policy,
                        const std::string& container);

// OOM kills of one pod's container within `window` before `now` (its current state and its last
// one: the API keeps no older termination).
int oom_kills_since(const kube::ContainerStatus& status, kube::TimePoint now,
                    std::chrono::nanoseconds window);

// A workload no policy acts on (`report --all`): its top-most controller (kind "Pod" for a pod
// no controller owns), its pods, and what each container runs with now: its CPU request (cores)
// and its memory limit, else request (bytes), those of its first pod by name.
struct UnpolicedWorkload {
  std::string ns{}, kind{}, name{};
  std::vector<std::string> pods{};
  std::map<std::string, std::pair<double, double>> requests{};
};
// One assignment of the pods to the policies, as the controller assigns them (one policy per pod,
// the oldest wins), and what the report shows of it.
struct ReportRows {
  // Sorted by namespace, workload, container: one per container of each policy's pods and of its
  // recommendation; a policy with neither still gets one row (container "").
  std::vector<ContainerRow> rows{};
  // The workloads no policy acts on, sorted by namespace, kind, name.
  std::vector<UnpolicedWorkload> unpoliced{};
};
ReportRows report_rows(const std::vector<kube::Pod>& pods,
                       const std::vector<ReportPolicy>& policies, const policy::OwnerLookup& owners,
                       const HistoryIndex& history, kube::TimePoint now);

}  // namespace tailor::cli
