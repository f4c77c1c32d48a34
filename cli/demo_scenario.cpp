#include "cli/demo_scenario.h"

#include <thread>

#include "cli/demo_api.h"
#include "cli/demo_summary.h"

namespace tailor::cli::demo {
namespace {
using namespace std::chrono_literals;

// How long the cache's Deferred resize is shown before the demo frees the capacity it waits for.
constexpr double kShowDeferredSeconds = 8;
// The web pods' load steps up 40 s after they start; the demo waits this long for the resize
// that follows before it ends without it.
constexpr double kWaitForLoadStepSeconds = 100;

struct Progress {
  bool grower_unpinned = false;
  bool ballast_deleted = false;
  double deferred_seen_at = -1;
};

bool replacement_running(const Tracker& tracker, const Snapshot& s) {
  for (const PodOutcome* p : tracker.alive(kGrower)) {
    const PodView* pod = s.pod_by_uid(p->uid);
    if (p->replacement && pod && pod->phase == "Running") return true;
  }
  return false;
}

bool web_followed_load_step(const Tracker& tracker) {
  auto pods = tracker.alive(kWeb);
  for (const PodOutcome* p : pods) {
    if (p->in_place_resizes < 2) return false;
  }
  return !pods.empty();
}

void nudge(Api& api, const ScenarioOptions& o, const Plan& plan, const Tracker& tracker,
           const Snapshot& s, double t, Progress& progress, LiveView& view) {
  if (!plan.fallbacks) return;
  if (!progress.grower_unpinned) {
    for (const PodOutcome* p : tracker.alive(kGrower)) {
      if (p->last_node != plan.small_node) continue;
      api.merge_patch_replica_set(o.ns, kGrower, grower_unpin_patch());
      progress.grower_unpinned = true;
      view.line("grower's pod sits on " + plan.small_node +
                "; its ReplicaSet no longer pins a node, so a replacement may go anywhere");
      break;
    }
  }
  // Whichever workload on the big node is Deferred first (cache or web, by the timing of
  // their recommendations) is the case shown: the ballast goes and the resize completes.
  for (const char* workload : {kCache, kWeb}) {
    for (const PodOutcome* p : tracker.alive(workload)) {
      if (progress.deferred_seen_at < 0 && p->pending_reasons.count("Deferred")) {
        progress.deferred_seen_at = t;
      }
    }
  }
  if (!progress.ballast_deleted && progress.deferred_seen_at >= 0 &&
      t - progress.deferred_seen_at >= kShowDeferredSeconds) {
    view.line("freeing capacity on " + plan.big_node + ": deleting pod ballast (requests memory " +
              std::to_string(plan.ballast_mi) + "Mi)");
    api.delete_pod(o.ns, kBallast);
    progress.ballast_deleted = true;
  }
}

bool finished(const Tracker& tracker, const Plan& plan, const Snapshot& s, double t) {
  if (!all_ok(evaluate(tracker.summary(), plan))) return false;
  if (plan.fallbacks && !replacement_running(tracker, s)) return false;
  return web_followed_load_step(tracker) || t > kWaitForLoadStepSeconds;
}

std::string unmet(const Summary& summary, const Plan& plan) {
  std::string out;
  for (const auto& c : evaluate(summary, plan)) {
    if (!c.ok) out += (out.empty() ? "" : "; ") + c.name + " (" + c.detail + ")";
  }
  return out.empty() ? "the grower's replacement to run" : out;
}

void deploy(Api& api, const ScenarioOptions& o, const Plan& plan, LiveView& view) {
  view.step("Applying the CRDs and deploying into namespace " + o.ns);
  api.apply_crds(o.crd_files);
  api.create_namespace(o.ns);
  for (const auto& object : policies(plan)) api.create(o.ns, object);
  view.line(
      "VerticalScalingPolicies web, grower, cache: mode InPlaceOrRecreate, RequestsAndLimits");
  for (const auto& object : workloads(plan)) api.create(o.ns, object);
  view.line("Deployment web (" + std::to_string(plan.web_replicas) + " pods on " + plan.big_node +
            "): CPU work and 100Mi, +150Mi after 40 s; requests cpu 100m memory 64Mi, limits "
            "cpu 200m memory 512Mi");
  if (plan.fallbacks) {
    view.line("pod ballast on " + plan.big_node + ": requests memory " +
              std::to_string(plan.ballast_mi) + "Mi, uses nothing");
    view.line("Deployment cache on " + plan.big_node + ": uses " + std::to_string(plan.cache_mi) +
              "Mi, requests 64Mi (its resize waits for the ballast to go: Deferred)");
    view.line("ReplicaSet grower alone on " + plan.small_node + ": uses " +
              std::to_string(plan.grower_mi) + "Mi, more than the node's " +
              std::to_string(plan.small_memory_mi) + "Mi (resized up until Infeasible)");
  } else {
    view.warn("Infeasible and Deferred cases skipped: " + plan.why_no_fallbacks);
  }
}

}  // namespace

ScenarioResult run_scenario(const ScenarioOptions& o, LiveView& view) {
  ScenarioResult result;
  Tracker tracker;
  try {
    Api api(o.kubeconfig);
    result.plan = plan_scenario(api.nodes());
    deploy(api, o, result.plan, view);
    view.step("Watching (every figure read back from the API)");
    Progress progress;
    const double start = view.elapsed();
    while (true) {
      if (o.interrupted && *o.interrupted) throw std::runtime_error("interrupted");
      const double t = view.elapsed();
      Snapshot s = api.snapshot(o.ns);
      for (const auto& line : tracker.observe(s, t)) view.line(line);
      nudge(api, o, result.plan, tracker, s, t, progress, view);
      if (finished(tracker, result.plan, s, t)) break;
      if (t - start > static_cast<double>(o.timeout.count())) {
        throw std::runtime_error("timed out after " + std::to_string(o.timeout.count()) +
                                 " s waiting for: " + unmet(tracker.summary(), result.plan));
      }
      std::this_thread::sleep_for(1s);
    }
  } catch (const std::exception& e) {
    result.failure = e.what();
  }
  result.summary = tracker.summary();
  if (!o.keep) {
    try {
      Api(o.kubeconfig).delete_namespace(o.ns);
    } catch (const std::exception&) {
      // The cluster may already be gone; nothing to clean then.
    }
  }
  return result;
}

}  // namespace tailor::cli::demo
