#include "cli/demo_tracker.h"

#include <algorithm>
#include <cmath>

#include "kube/model/quantity.h"

namespace tailor::cli::demo {
namespace {

bool same_quantity(const std::string& a, const std::string& b) {
  if (a == b) return true;
  auto qa = kube::Quantity::try_parse(a), qb = kube::Quantity::try_parse(b);
  return qa && qb && *qa == *qb;
}

int restarts(const PodView& pod) {
  int n = 0;
  for (const auto& c : pod.containers) n += c.restart_count;
  return n;
}

std::map<std::string, ResourceMap> desired(const PodView& pod, bool limits) {
  std::map<std::string, ResourceMap> out;
  for (const auto& c : pod.containers) out[c.name] = limits ? c.limits : c.requests;
  return out;
}

std::map<std::string, ResourceMap> actual(const PodView& pod, bool limits) {
  std::map<std::string, ResourceMap> out;
  for (const auto& c : pod.containers) {
    const ResourceMap& r = limits ? c.actual_limits : c.actual_requests;
    if (!r.empty()) out[c.name] = r;
  }
  return out;
}

bool same(const std::map<std::string, ResourceMap>& a,
          const std::map<std::string, ResourceMap>& b) {
  if (a.size() != b.size()) return false;
  for (const auto& [name, r] : a) {
    auto it = b.find(name);
    if (it == b.end() || !same_resources(r, it->second)) return false;
  }
  return true;
}

// "requests cpu 100m→230m, memory 64Mi; limits ..." over every container (its name first when
// there are several); a container not seen before is described as it is.
std::string describe_pod_change(const std::map<std::string, ResourceMap>& req_before,
                                const std::map<std::string, ResourceMap>& req_after,
                                const std::map<std::string, ResourceMap>& lim_before,
                                const std::map<std::string, ResourceMap>& lim_after) {
  auto change = [](const std::map<std::string, ResourceMap>& before, const std::string& name,
                   const ResourceMap& after) {
    auto it = before.find(name);
    return it == before.end() ? describe(after) : describe_change(it->second, after, true);
  };
  std::string out;
  for (const auto& [name, after] : req_after) {
    std::string part = "requests " + change(req_before, name, after);
    auto limits = lim_after.find(name);
    if (limits != lim_after.end() && !limits->second.empty()) {
      part += ", limits " + change(lim_before, name, limits->second);
    }
    out += (out.empty() ? "" : "; ") + (req_after.size() > 1 ? name + ": " : "") + part;
  }
  return out;
}

// Memory the controller wrote as plain bytes reads better in MiB ("292576801" -> "279Mi").
std::string pretty(const std::string& name, const std::string& q) {
  if (name != "memory" || q.empty() || q.find_first_not_of("0123456789") != std::string::npos) {
    return q;
  }
  const double mi = std::stod(q) / (1024.0 * 1024.0);
  return std::to_string(static_cast<long long>(mi + 0.5)) + "Mi";
}

// Whether a recommendation moved enough (10%) since it was last shown to be shown again.
bool moved(const ResourceMap& shown, const ResourceMap& now) {
  for (const auto& [name, q] : now) {
    auto it = shown.find(name);
    if (it == shown.end()) return true;
    auto a = kube::Quantity::try_parse(it->second), b = kube::Quantity::try_parse(q);
    if (!a || !b) return it->second != q;
    if (std::abs(b->as_double() - a->as_double()) > 0.1 * a->as_double()) return true;
  }
  return false;
}

std::string short_uid(const std::string& uid) { return uid.substr(0, 8); }

const ConditionView* pending(const PodView& pod) {
  const ConditionView* c = pod.condition("PodResizePending");
  return c && c->status == "True" ? c : nullptr;
}

}  // namespace

std::string describe(const ResourceMap& resources) {
  std::string out;
  for (const auto& [name, q] : resources) {
    out += (out.empty() ? "" : ", ") + name + " " + pretty(name, q);
  }
  return out.empty() ? "none" : out;
}

std::string describe_change(const ResourceMap& before, const ResourceMap& after, bool all) {
  std::string out;
  for (const auto& [name, q] : after) {
    auto it = before.find(name);
    const bool changed = it == before.end() || !same_quantity(it->second, q);
    if (!changed && !all) continue;
    out += (out.empty() ? "" : ", ") + name + " " +
           (it == before.end() ? "-" : pretty(name, it->second)) +
           (changed ? "→" + pretty(name, q) : "");
  }
  return out;
}

bool same_resources(const ResourceMap& a, const ResourceMap& b) {
  if (a.size() != b.size()) return false;
  for (const auto& [name, q] : a) {
    auto it = b.find(name);
    if (it == b.end() || !same_quantity(q, it->second)) return false;
  }
  return true;
}

std::vector<std::string> Tracker::observe(const Snapshot& snapshot, double t) {
  std::vector<std::string> out;
  observe_policies(snapshot, t, out);
  for (const auto& pod : snapshot.pods) observe_pod(pod, snapshot, t, out);
  observe_events(snapshot, t, out);
  observe_gone(snapshot, t, out);
  return out;
}

void Tracker::observe_policies(const Snapshot& s, double t, std::vector<std::string>& out) {
  for (const auto& policy : s.policies) {
    for (const auto& [container, target] : policy.targets) {
      const std::string key = policy.name + "/" + container;
      auto it = targets_.find(key);
      if (it != targets_.end() && same_resources(it->second, target)) continue;
      targets_[key] = target;
      auto was = shown_targets_.find(key);
      if (was != shown_targets_.end() && !moved(was->second, target)) continue;
      out.push_back("recommendation  " + key + ": target " + describe(target) +
                    (was == shown_targets_.end() ? "" : " (was " + describe(was->second) + ")"));
      shown_targets_[key] = target;
      if (timings_.first_recommendation_at < 0) timings_.first_recommendation_at = t;
    }
  }
}

void Tracker::observe_pod(const PodView& pod, const Snapshot& s, double t,
                          std::vector<std::string>& out) {
  (void)s;
  auto found = last_view_.find(pod.uid);
  if (found == last_view_.end()) {
    PodOutcome o{.name = pod.name,
                 .uid = pod.uid,
                 .app = pod.app,
                 .first_node = pod.node,
                 .last_node = pod.node,
                 .first_requests = desired(pod, false),
                 .first_limits = desired(pod, true),
                 .last_requests = actual(pod, false),
                 .last_limits = actual(pod, true),
                 .first_restarts = restarts(pod),
                 .last_restarts = restarts(pod),
                 .first_seen = t};
    std::string line = "pod " + pod.name + " (uid " + short_uid(pod.uid) + ")" +
                       (pod.node.empty() ? " Pending" : " on " + pod.node) + ": " +
                       describe_pod_change({}, o.first_requests, {}, o.first_limits);
    if (evicted_apps_.count(pod.app)) {
      line =
          "replacement " + line +
          (mark_replacement(o) ? " — the policy's target, set by Tailor's admission webhook" : "");
    }
    out.push_back(line);
    if (const ConditionView* now = pending(pod)) {
      out.push_back(pod.name + " on " + pod.node + ": PodResizePending/" + now->reason + ": " +
                    now->message);
      o.pending_reasons.insert(now->reason);
      o.last_pending_reason = now->reason;
    }
    pods_[pod.uid] = std::move(o);
    last_view_[pod.uid] = pod;
    return;
  }
  PodOutcome& o = pods_[pod.uid];
  const PodView& before = found->second;
  if (before.node.empty() && !pod.node.empty()) {
    out.push_back(pod.name + " scheduled to " + pod.node);
    o.first_node = pod.node;
  }
  o.last_node = pod.node;
  // A resize the node applied before this snapshot shows as "resized in place" below; one
  // still in flight shows here.
  const bool applied = same(desired(pod, false), actual(pod, false));
  if ((!same(desired(before, false), desired(pod, false)) ||
       !same(desired(before, true), desired(pod, true))) &&
      !applied) {
    out.push_back("resize requested  " + pod.name + ": " +
                  describe_pod_change(desired(before, false), desired(pod, false),
                                      desired(before, true), desired(pod, true)));
  }
  const ConditionView* was = pending(before);
  const ConditionView* now = pending(pod);
  if (now && (!was || was->reason != now->reason)) {
    out.push_back(pod.name + " on " + pod.node + ": PodResizePending/" + now->reason + ": " +
                  now->message);
    o.pending_reasons.insert(now->reason);
  }
  if (now) o.last_pending_reason = now->reason;
  const ConditionView* error = pod.condition("PodResizeInProgress");
  const ConditionView* error_before = before.condition("PodResizeInProgress");
  if (error && error->reason == "Error" &&
      (!error_before || error_before->message != error->message)) {
    out.push_back(pod.name + ": PodResizeInProgress/Error: " + error->message);
  }
  const auto before_actual = actual(before, false), after_actual = actual(pod, false);
  const auto before_limits = actual(before, true), after_limits = actual(pod, true);
  if (!before_actual.empty() && !after_actual.empty() &&
      (!same(before_actual, after_actual) || !same(before_limits, after_limits))) {
    ++o.in_place_resizes;
    if (timings_.first_resize_at < 0) timings_.first_resize_at = t;
    out.push_back("resized in place  " + pod.name + " on " + pod.node + ": " +
                  describe_pod_change(before_actual, after_actual, before_limits, after_limits) +
                  " — restarts " + std::to_string(restarts(pod)) + ", uid " + short_uid(pod.uid) +
                  " unchanged");
    if (o.pending_reasons.count("Deferred") && !o.deferred_completed && !now) {
      o.deferred_completed = true;
      if (timings_.first_deferred_completed_at < 0) timings_.first_deferred_completed_at = t;
      out.push_back("the Deferred resize of " + pod.name + " completed once capacity was freed");
    }
  }
  if (!after_actual.empty()) {
    o.last_requests = after_actual;
    o.last_limits = after_limits;
  }
  if (restarts(pod) > o.last_restarts) {
    out.push_back("WARNING " + pod.name + " restarted (restart count " +
                  std::to_string(restarts(pod)) + ")");
  }
  o.last_restarts = restarts(pod);
  if (pod.terminating && !before.terminating) out.push_back(pod.name + " is terminating");
  last_view_[pod.uid] = pod;
}

void Tracker::observe_events(const Snapshot& s, double t, std::vector<std::string>& out) {
  for (const auto& e : s.events) {
    if (e.object_kind != "Pod" || e.reason != "Recreating" || !seen_events_.insert(e.uid).second) {
      continue;
    }
    PodOutcome* o = nullptr;
    for (auto& [uid, p] : pods_) {
      if ((!e.object_uid.empty() && uid == e.object_uid) ||
          (e.object_uid.empty() && p.name == e.object_name && !p.gone)) {
        o = &p;
      }
    }
    out.push_back("evicted  " + e.object_name + " to be recreated: " + e.message);
    if (!o) continue;
    o->evicted = true;
    o->eviction_message = e.message;
    evicted_apps_.insert(o->app);
    if (timings_.first_recreation_at < 0) timings_.first_recreation_at = t;
    for (auto& [uid, p] : pods_) {  // a replacement seen before the event
      if (p.app != o->app || &p == o || p.replacement || p.first_seen <= o->first_seen) continue;
      out.push_back(
          "replacement pod " + p.name + " on " + p.last_node +
          (mark_replacement(p) ? ": created with the policy's target (admission webhook)" : ""));
    }
  }
}

void Tracker::observe_gone(const Snapshot& s, double t, std::vector<std::string>& out) {
  for (auto& [uid, o] : pods_) {
    if (o.gone || s.pod_by_uid(uid)) continue;
    o.gone = true;
    o.gone_at = t;
    out.push_back("pod " + o.name + " (uid " + short_uid(uid) + ") is gone from " + o.last_node);
  }
}

bool Tracker::mark_replacement(PodOutcome& o) const {
  o.replacement = true;
  bool sized = !o.first_requests.empty();
  for (const auto& [container, requests] : o.first_requests) {
    auto target = targets_.find(o.app + "/" + container);
    sized = sized && target != targets_.end() && same_resources(target->second, requests);
  }
  o.right_sized = sized;
  return sized;
}

const PodOutcome* Tracker::pod(const std::string& uid) const {
  auto it = pods_.find(uid);
  return it == pods_.end() ? nullptr : &it->second;
}

std::vector<const PodOutcome*> Tracker::alive(const std::string& app) const {
  std::vector<const PodOutcome*> out;
  for (const auto& [uid, o] : pods_) {
    if (o.app == app && !o.gone && !last_view_.at(uid).terminating) out.push_back(&o);
  }
  return out;
}

Summary Tracker::summary() const {
  Summary s = timings_;
  s.recommendations = targets_;
  for (const auto& [uid, o] : pods_) {
    s.in_place_resizes += o.in_place_resizes;
    s.restarts_caused += o.last_restarts - o.first_restarts;
    if (o.deferred_completed) ++s.deferred_completed;
    if (o.replacement && o.right_sized) ++s.right_sized_replacements;
    if (o.evicted) {
      std::string cause = o.last_pending_reason;
      if (cause.empty()) {
        cause = o.eviction_message.find("Infeasible") != std::string::npos ? "Infeasible"
                : o.eviction_message.find("Deferred") != std::string::npos ? "Deferred"
                                                                           : "Other";
      }
      ++s.recreations[cause];
    }
    s.pods.push_back(o);
  }
  for (const char* cause : {"Infeasible", "Deferred"}) s.recreations.emplace(cause, 0);
  std::sort(s.pods.begin(), s.pods.end(),
            [](const PodOutcome& a, const PodOutcome& b) { return a.first_seen < b.first_seen; });
  return s;
}

}  // namespace tailor::cli::demo
