// The fault campaign's decisions, pure over what it read (tests/e2e/fault_campaign.h): when a
// pod has settled and which invariants a snapshot breaks.
#include <algorithm>

#include "tests/e2e/fault_campaign.h"

namespace tailor::e2e {
namespace {

// ---- comparisons --------------------------------------------------------------------------

bool same_quantities(const Resources& a, const Resources& b) {
  if (a.size() != b.size()) return false;
  for (const auto& [k, v] : a) {
    auto other = b.find(k);
    if (other == b.end()) return false;
    const bool equal =
        k == "cpu" ? milli_cpu(v) == milli_cpu(other->second) : bytes(v) == bytes(other->second);
    if (!equal) return false;
  }
  return true;
}

std::string str(const Resources& r) { return flow(r); }

bool has_true_condition(const PodView& pod, const std::string& type) {
  const ConditionView* c = pod.condition(type);
  return c && c->status == "True";
}

void container_gaps(const Snapshot& s, const PodView& pod, const std::string& name,
                    const Want& want, std::vector<std::string>& gaps) {
  const ContainerView* c = pod.container(name);
  if (!c) {
    gaps.push_back(name + ": no such container");
    return;
  }
  auto gap = [&](const std::string& what, const Resources& seen, const Resources& wanted) {
    if (!same_quantities(seen, wanted)) {
      gaps.push_back(name + " " + what + "=" + str(seen) + " want " + str(wanted));
    }
  };
  if (!c->running) gaps.push_back(name + " not running");
  gap("spec.requests", c->requests, want.requests);
  gap("spec.limits", c->limits, want.limits);
  gap("allocated", c->allocated, want.requests);
  gap("actual.requests", c->actual_requests, want.requests);
  gap("actual.limits", c->actual_limits, want.limits);
  const std::string expected = to_string(expected_container_cgroup(want.requests, want.limits));
  auto cg = s.cgroups.find(cgroup_key(pod, name));
  const std::string seen = cg == s.cgroups.end() ? "not read" : cg->second;
  if (seen != expected) gaps.push_back(name + " cgroup=" + seen + " want " + expected);
}

}  // namespace

std::string flow(const Resources& r) {
  std::string out = "{";
  for (const auto& [k, v] : r) out += (out.size() > 1 ? ", " : "") + k + ": " + v;
  return out + "}";
}

// ---- the pure decisions -------------------------------------------------------------------

std::string cgroup_key(const PodView& pod, const std::string& container) {
  return pod.ns + "/" + pod.name + "/" + container;
}

const PodView* find_pod(const Snapshot& s, const std::string& ns, const CampaignPod& p) {
  const PodView* found = nullptr;
  for (const PodView& pod : s.pods) {
    if (pod.ns != ns || pod.deleting) continue;
    const bool match = p.managed ? pod.name.rfind(p.key + "-", 0) == 0 : pod.name == p.key;
    if (!match) continue;
    if (found) return nullptr;  // two: a replacement exists
    found = &pod;
  }
  return found;
}

std::vector<std::string> settle_gaps(const Snapshot& s, const PodView& pod, const PodWant& want,
                                     const std::map<std::string, int>& restarts_at_least) {
  std::vector<std::string> gaps;
  if (!pod.ready()) gaps.push_back("not Running and Ready (phase " + pod.phase + ")");
  for (const char* type : {"PodResizePending", "PodResizeInProgress"}) {
    if (has_true_condition(pod, type)) {
      const ConditionView* c = pod.condition(type);
      gaps.push_back(std::string(type) + "/" + c->reason + " " + c->message);
    }
  }
  for (const auto& [name, w] : want) container_gaps(s, pod, name, w, gaps);
  for (const auto& [name, at_least] : restarts_at_least) {
    const ContainerView* c = pod.container(name);
    if (c && c->restart_count < at_least) {
      gaps.push_back(name + " restartCount=" + std::to_string(c->restart_count) + " want " +
                     std::to_string(at_least));
    }
  }
  return gaps;
}

std::vector<std::string> overcommitted_nodes(const Snapshot& s) {
  std::map<std::string, std::map<std::string, std::int64_t>> used;  // node -> resource -> sum
  for (const PodView& pod : s.pods) {
    if (pod.node.empty() || pod.phase == "Succeeded" || pod.phase == "Failed") continue;
    for (const ContainerView& c : pod.containers) {
      for (const auto& [k, v] : c.allocated) {
        used[pod.node][k] += k == "cpu" ? milli_cpu(v) : bytes(v);
      }
    }
  }
  std::vector<std::string> out;
  for (const auto& [node, sums] : used) {
    auto allocatable = s.allocatable.find(node);
    if (allocatable == s.allocatable.end()) continue;
    for (const auto& [k, sum] : sums) {
      auto cap = allocatable->second.find(k);
      if (cap == allocatable->second.end()) continue;
      const std::int64_t limit = k == "cpu" ? milli_cpu(cap->second) : bytes(cap->second);
      if (sum > limit) {
        out.push_back("node " + node + ": allocated " + k + " " + std::to_string(sum) + " > " +
                      "allocatable " + std::to_string(limit));
      }
    }
  }
  return out;
}

bool restarted_as_asked(const ContainerView& c, const std::string& id_before, int restarts_before,
                        bool restart_asked) {
  const int attempts = c.restart_count - restarts_before;
  if (!restart_asked) return attempts == 0 && c.container_id == id_before;
  if (c.container_id == id_before) return false;
  // One new run; an attempt between whose start the runtime lost (it never ran) is counted by
  // restartCount as the kubelet counts it, but restarted nothing.
  return attempts == 1 || (attempts == 2 && c.last_terminated && !c.last_started);
}

std::vector<std::string> invariant_breaks(
    const Snapshot& s, const std::string& ns, const std::vector<CampaignPod>& pods,
    const std::map<std::string, PodBaseline>& before, const std::map<std::string, PodWant>& desired,
    const std::map<std::string, std::vector<std::string>>& restarted) {
  std::vector<std::string> out = overcommitted_nodes(s);
  for (const CampaignPod& p : pods) {
    const PodView* pod = find_pod(s, ns, p);
    const PodBaseline& was = before.at(p.key);
    if (!pod) {
      out.push_back(p.key + ": pod lost (none, or a replacement beside it); was uid " + was.uid);
      continue;
    }
    if (pod->uid != was.uid) {
      out.push_back(p.key + ": pod replaced: uid " + was.uid + " -> " + pod->uid);
      continue;
    }
    auto asked = restarted.find(p.key);
    for (const auto& [name, id_restarts] : was.containers) {
      const ContainerView* c = pod->container(name);
      if (!c) continue;
      const bool restart_asked =
          asked != restarted.end() && std::count(asked->second.begin(), asked->second.end(), name);
      if (!restarted_as_asked(*c, id_restarts.first, id_restarts.second, restart_asked)) {
        out.push_back(p.key + "/" + name + ": restartCount " + std::to_string(id_restarts.second) +
                      " -> " + std::to_string(c->restart_count) + ", container " +
                      id_restarts.first.substr(0, 12) + " -> " + c->container_id.substr(0, 12) +
                      (restart_asked ? " (one restart asked)" : " (no restart asked)"));
      }
    }
    for (const std::string& gap : settle_gaps(s, *pod, desired.at(p.key), {})) {
      out.push_back(p.key + ": not settled: " + gap);
    }
  }
  return out;
}

}  // namespace tailor::e2e
