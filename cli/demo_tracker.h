// Follows the demo's pods through successive API snapshots, keyed by pod UID: what it prints
// live (recommendations, resize requests, Deferred/Infeasible conditions, in-place resizes,
// evictions, replacements) and the figures of the summary. Pure: it sees only what the API
// returned, never Tailor's own bookkeeping.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "cli/demo_api.h"

namespace tailor::cli::demo {

struct PodOutcome {
  std::string name{}, uid{}, app{}, first_node{}, last_node{};
  std::map<std::string, ResourceMap> first_requests{}, first_limits{};  // container -> desired
  std::map<std::string, ResourceMap> last_requests{}, last_limits{};    // actual, as last seen
  int first_restarts = 0, last_restarts = 0;
  int in_place_resizes = 0;
  std::set<std::string> pending_reasons{};  // PodResizePending reasons seen
  std::string last_pending_reason{};
  bool deferred_completed = false;
  bool evicted = false;  // a Recreating event names this pod
  std::string eviction_message{};
  bool gone = false;
  bool replacement = false;  // created after a pod of its workload was evicted
  bool right_sized = false;  // created with its policy's target as requests (the webhook)
  double first_seen = 0, gone_at = -1;
};

struct Summary {
  int in_place_resizes = 0;
  int restarts_caused = 0;
  std::map<std::string, int> recreations{};  // by the resize outcome that caused it
  int deferred_completed = 0;
  int right_sized_replacements = 0;
  std::map<std::string, ResourceMap> recommendations{};  // "policy/container" -> target
  std::vector<PodOutcome> pods{};
  double first_recommendation_at = -1, first_resize_at = -1, first_recreation_at = -1,
         first_deferred_completed_at = -1;
};

class Tracker {
 public:
  // Folds one snapshot taken `t` seconds into the demo; returns the lines to show.
  std::vector<std::string> observe(const Snapshot& snapshot, double t);
  Summary summary() const;

  const PodOutcome* pod(const std::string& uid) const;
  // Pods of a workload (by app label) as last seen, alive ones only.
  std::vector<const PodOutcome*> alive(const std::string& app) const;

 private:
  void observe_policies(const Snapshot& s, double t, std::vector<std::string>& out);
  void observe_pod(const PodView& pod, const Snapshot& s, double t, std::vector<std::string>& out);
  void observe_events(const Snapshot& s, double t, std::vector<std::string>& out);
  void observe_gone(const Snapshot& s, double t, std::vector<std::string>& out);
  // Marks a pod created after its workload's pod was evicted; true when the policy's target
  // was its requests from the start.
  bool mark_replacement(PodOutcome& o) const;

  std::map<std::string, PodOutcome> pods_{};            // by uid
  std::map<std::string, PodView> last_view_{};          // uid -> last snapshot of the pod
  std::map<std::string, ResourceMap> targets_{};        // "policy/container" -> target
  std::map<std::string, ResourceMap> shown_targets_{};  // as last printed
  std::set<std::string> seen_events_{};
  std::set<std::string> evicted_apps_{};
  Summary timings_{};
};

// "cpu 100m→230m, memory 64Mi→180Mi" (only what changed unless `all`).
std::string describe_change(const ResourceMap& before, const ResourceMap& after, bool all = false);
// "cpu 100m, memory 64Mi".
std::string describe(const ResourceMap& resources);
// Same quantities, whatever their spelling ("1Gi" == "1024Mi").
bool same_resources(const ResourceMap& a, const ResourceMap& b);

}  // namespace tailor::cli::demo
