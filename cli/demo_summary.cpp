#include "cli/demo_summary.h"

#include <boost/json.hpp>
#include <cstdio>
#include <sstream>

namespace tailor::cli::demo {
namespace {
namespace bj = boost::json;

bj::object to_json(const ResourceMap& r) {
  bj::object out;
  for (const auto& [name, q] : r) out[name] = q;
  return out;
}

bj::object to_json(const std::map<std::string, ResourceMap>& by_container) {
  bj::object out;
  for (const auto& [name, r] : by_container) out[name] = to_json(r);
  return out;
}

bj::value seconds(double s) { return s < 0 ? bj::value(nullptr) : bj::value(s); }

std::string fixed(double s) {
  if (s < 0) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f s", s);
  return buf;
}

std::string first_container(const std::map<std::string, ResourceMap>& by_container) {
  return by_container.empty() ? "none" : describe(by_container.begin()->second);
}

std::string fate(const PodOutcome& p) {
  std::string out;
  auto add = [&](const std::string& s) { out += (out.empty() ? "" : "; ") + s; };
  if (p.in_place_resizes > 0) add("resized in place x" + std::to_string(p.in_place_resizes));
  if (p.pending_reasons.count("Deferred")) {
    add(p.deferred_completed ? "Deferred, then completed" : "Deferred");
  }
  if (p.pending_reasons.count("Infeasible")) add("Infeasible");
  if (p.evicted) add("evicted to be recreated");
  if (p.replacement) add(p.right_sized ? "replacement, right-sized at creation" : "replacement");
  return out.empty() ? "unchanged" : out;
}

}  // namespace

std::vector<Check> evaluate(const Summary& s, const Plan& plan) {
  auto count = [&](const char* cause) {
    auto it = s.recreations.find(cause);
    return it == s.recreations.end() ? 0 : it->second;
  };
  std::vector<Check> out{
      {"resized in place", s.in_place_resizes >= 1,
       std::to_string(s.in_place_resizes) + " in-place resize(s) seen in pod status"},
      {"no restarts", s.restarts_caused == 0,
       std::to_string(s.restarts_caused) + " container restart(s) during the demo"}};
  if (!plan.fallbacks) return out;
  out.push_back(
      {"Infeasible → recreated", count("Infeasible") >= 1,
       std::to_string(count("Infeasible")) + " pod(s) evicted after an Infeasible resize"});
  out.push_back({"Deferred → completed", s.deferred_completed >= 1,
                 std::to_string(s.deferred_completed) + " Deferred resize(s) completed in place"});
  return out;
}

bool all_ok(const std::vector<Check>& checks) {
  for (const auto& c : checks) {
    if (!c.ok) return false;
  }
  return true;
}

std::string report_text(const Summary& s, const Plan& plan, const std::vector<Check>& checks,
                        const RunInfo& run) {
  std::ostringstream out;
  out << "\n== Summary (read back from the API: pod status, conditions, events)\n";
  out << "  nodes: " << plan.small_node << " (" << plan.small_memory_mi << " MiB), "
      << plan.big_node << " (" << plan.big_memory_mi << " MiB)\n";
  out << "  in-place resizes: " << s.in_place_resizes << "   restarts: " << s.restarts_caused
      << "   recreations:";
  for (const auto& [cause, n] : s.recreations) out << " " << cause << "=" << n;
  out << "   Deferred completed: " << s.deferred_completed
      << "   right-sized replacements: " << s.right_sized_replacements << "\n";
  out << "  first recommendation after " << fixed(s.first_recommendation_at)
      << ", first in-place resize after " << fixed(s.first_resize_at) << ", demo took "
      << fixed(run.duration_seconds) << "\n\n";
  for (const auto& p : s.pods) {
    out << "  " << p.name << " (uid " << p.uid.substr(0, 8) << ", "
        << (p.last_node.empty() ? "unscheduled" : p.last_node) << ", restarts "
        << p.last_restarts - p.first_restarts << "): " << first_container(p.first_requests) << " → "
        << first_container(p.last_requests) << " — " << fate(p) << "\n";
  }
  out << "\n";
  for (const auto& c : checks) {
    out << "  [" << (c.ok ? "ok" : "FAILED") << "] " << c.name << ": " << c.detail << "\n";
  }
  if (!plan.fallbacks)
    out << "  (Infeasible and Deferred cases skipped: " << plan.why_no_fallbacks << ")\n";
  if (!run.failure.empty()) out << "  stopped early: " << run.failure << "\n";
  out << "\n== Look yourself\n";
  if (run.cluster_kept) {
    const std::string kc = "KUBECONFIG=" + run.kubeconfig + " ";
    if (!run.namespace_kept)
      out << "  (namespace " << run.ns << " was removed; --keep leaves it)\n";
    out << "  " << kc << "kubectl get vsp -n " << run.ns << "\n"
        << "  " << kc << "kubectl get pods -n " << run.ns << " -o wide\n"
        << "  " << kc << "kubectl describe pod -n " << run.ns << " <name>\n"
        << "  " << kc << "kubectl get events -n " << run.ns << " --sort-by=.lastTimestamp\n";
    if (!run.cluster_dir.empty()) {
      out << "  stop the cluster: tailor cluster down --dir " << run.cluster_dir << "\n";
    }
  } else {
    const std::string kc = "KUBECONFIG=" + run.kubeconfig + " ";
    out << "  (the cluster is stopped; logs stay in " << run.cluster_dir
        << "; run `tailor demo --keep` to leave it up, then:)\n"
        << "  " << kc << "kubectl get vsp -n " << run.ns << "\n"
        << "  " << kc << "kubectl get pods -n " << run.ns << " -o wide\n"
        << "  " << kc << "kubectl describe pod -n " << run.ns << " <name>\n";
  }
  return out.str();
}

std::string report_json(const Summary& s, const Plan& plan, const std::vector<Check>& checks,
                        const RunInfo& run) {
  bj::object recreations;
  for (const auto& [cause, n] : s.recreations) recreations[cause] = n;
  bj::array pods;
  for (const auto& p : s.pods) {
    bj::array pending;
    for (const auto& r : p.pending_reasons) pending.push_back(bj::string(r));
    pods.push_back(bj::object{{"name", p.name},
                              {"uid", p.uid},
                              {"app", p.app},
                              {"first_node", p.first_node},
                              {"last_node", p.last_node},
                              {"requests_before", to_json(p.first_requests)},
                              {"limits_before", to_json(p.first_limits)},
                              {"requests_after", to_json(p.last_requests)},
                              {"limits_after", to_json(p.last_limits)},
                              {"restarts", p.last_restarts - p.first_restarts},
                              {"in_place_resizes", p.in_place_resizes},
                              {"pending_reasons", std::move(pending)},
                              {"deferred_completed", p.deferred_completed},
                              {"evicted", p.evicted},
                              {"replacement", p.replacement},
                              {"right_sized", p.right_sized},
                              {"gone", p.gone}});
  }
  bj::object recommendations;
  for (const auto& [key, target] : s.recommendations) recommendations[key] = to_json(target);
  bj::array check_list;
  for (const auto& c : checks) {
    check_list.push_back(bj::object{{"name", c.name}, {"ok", c.ok}, {"detail", c.detail}});
  }
  bj::object out{
      {"in_place_resizes", s.in_place_resizes},
      {"restarts_caused", s.restarts_caused},
      {"recreations", std::move(recreations)},
      {"deferred_completed", s.deferred_completed},
      {"right_sized_replacements", s.right_sized_replacements},
      {"success", all_ok(checks) && run.failure.empty()},
      {"failure", run.failure},
      {"duration_seconds", run.duration_seconds},
      {"seconds_to_first_recommendation", seconds(s.first_recommendation_at)},
      {"seconds_to_first_in_place_resize", seconds(s.first_resize_at)},
      {"seconds_to_first_recreation", seconds(s.first_recreation_at)},
      {"seconds_to_deferred_completed", seconds(s.first_deferred_completed_at)},
      {"namespace", run.ns},
      {"kubeconfig", run.kubeconfig},
      {"nodes",
       bj::object{
           {"small", bj::object{{"name", plan.small_node}, {"memory_mi", plan.small_memory_mi}}},
           {"big", bj::object{{"name", plan.big_node}, {"memory_mi", plan.big_memory_mi}}}}},
      {"fallback_cases", plan.fallbacks},
      {"recommendations", std::move(recommendations)},
      {"pods", std::move(pods)},
      {"checks", std::move(check_list)}};
  return bj::serialize(out) + "\n";
}

}  // namespace tailor::cli::demo
