#include "tests/e2e/fault_campaign.h"

#include <signal.h>

#include <algorithm>
#include <boost/json.hpp>
#include <iostream>
#include <random>
#include <sstream>
#include <thread>

#include "kube/client/rest_client.h"
#include "policy/resources.h"
#include "tests/e2e/restart_process.h"
#include "tests/e2e/workload_manifests.h"

namespace tailor::e2e {
namespace {

namespace bj = boost::json;
namespace fs = std::filesystem;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr const char* kManaged = "managed";

// ---- workloads ----------------------------------------------------------------------------

std::string burstable_name(const std::string& node) { return "burstable-" + node; }
std::string guaranteed_name(const std::string& node) { return "guaranteed-" + node; }

std::string pod_yaml(const std::string& name, const std::string& node, const PodWant& want,
                     const std::vector<std::string>& restart_on_memory) {
  WorkloadSpec spec{.name = name, .node = node, .containers = {}};
  for (const auto& [c, w] : want) {
    const bool restarts = std::count(restart_on_memory.begin(), restart_on_memory.end(), c) > 0;
    spec.containers.push_back({.name = c,
                               .command = {"sleep", "86400"},
                               .requests = w.requests,
                               .limits = w.limits,
                               .restart_on_resize = restarts ? std::vector<std::string>{"memory"}
                                                             : std::vector<std::string>{}});
  }
  return pod_manifest(spec);
}

std::string managed_yaml(const std::string& node, const Want& w) {
  return deployment_manifest(
             {.name = kManaged,
              .node = node,
              .containers = {{.command = {"sleep", "86400"}, .requests = w.requests}}}) +
         "---\n" +
         policy_manifest({.name = kManaged,
                          .deployment = kManaged,
                          .mode = "InPlace",
                          .min_replicas = 1,
                          .containers = {pinned(w.requests)}});
}

Want burstable(int cpu_m, int memory_mi) {
  return {
      {{"cpu", std::to_string(cpu_m) + "m"}, {"memory", std::to_string(memory_mi) + "Mi"}},
      {{"cpu", std::to_string(2 * cpu_m) + "m"}, {"memory", std::to_string(2 * memory_mi) + "Mi"}}};
}
Want guaranteed(int cpu_m, int memory_mi) {
  const Resources r{{"cpu", std::to_string(cpu_m) + "m"},
                    {"memory", std::to_string(memory_mi) + "Mi"}};
  return {r, r};
}
Want requests_only(int cpu_m, int memory_mi) {
  return {{{"cpu", std::to_string(cpu_m) + "m"}, {"memory", std::to_string(memory_mi) + "Mi"}}, {}};
}

// The workloads and their first resources (≤ 100m CPU and ≤ 256Mi a pod, as other e2e tests
// keep theirs: the scenarios' arithmetic on the nodes holds).
struct Workloads {
  std::vector<CampaignPod> pods;
  std::map<std::string, PodWant> desired;
  std::string manifests;
};

Workloads workloads(const std::vector<std::string>& nodes) {
  Workloads w;
  for (const std::string& node : nodes) {
    const std::string b = burstable_name(node), g = guaranteed_name(node);
    w.pods.push_back({.key = b});
    w.desired[b] = {{"app", burstable(40, 64)}, {"side", burstable(10, 32)}};
    w.pods.push_back({.key = g, .restart_on_memory = {"app"}});
    w.desired[g] = {{"app", guaranteed(30, 64)}};
    w.manifests += pod_yaml(b, node, w.desired[b], {}) + "---\n" +
                   pod_yaml(g, node, w.desired[g], {"app"}) + "---\n";
  }
  w.pods.push_back({.key = kManaged, .managed = true});
  w.desired[kManaged] = {{"app", requests_only(50, 64)}};
  w.manifests += managed_yaml(nodes.back(), w.desired[kManaged].at("app"));
  return w;
}

// ---- processes ----------------------------------------------------------------------------

struct Process {
  std::string name;
  fs::path pid_file;
};

fs::path node_dir(const E2eCluster& cluster, const std::string& node) {
  return cluster.dir() / ("node-" + node.substr(node.rfind('-') + 1));  // tailor-node-2 -> node-2
}

std::vector<Process> processes(const E2eCluster& cluster, const std::vector<std::string>& nodes) {
  std::vector<Process> out = {{"tailor-cluster", cluster.dir() / "cluster.pid"},
                              {"tailor-controller", cluster.dir() / "controller.pid"}};
  for (const std::string& node : nodes) {
    out.push_back({"agent/" + node, node_dir(cluster, node) / "agent.pid"});
    out.push_back(
        {"containerd/" + node, node_dir(cluster, node) / "containerd" / "containerd.pid"});
  }
  return out;
}

// ---- one run's scenario -------------------------------------------------------------------

enum class Fault { Kill, Stop };

struct Scenario {
  int run = 0;
  std::size_t pod = 0;                  // index into the workloads
  PodWant resize{};                     // the containers that change, with their new resources
  std::vector<std::string> restarts{};  // containers that must restart once
  std::size_t process = 0;              // index into processes()
  Fault fault = Fault::Kill;
  milliseconds delay{0};  // after the resize was issued; negative: before it
  milliseconds pause{0};
};

int pick(std::mt19937_64& rng, int lo, int hi, int step) {
  return lo + step * std::uniform_int_distribution<int>(0, (hi - lo) / step)(rng);
}

// New resources for one pod, different from `now`; the restarts they ask for.
std::pair<PodWant, std::vector<std::string>> draw_resize(std::mt19937_64& rng, const CampaignPod& p,
                                                         const PodWant& now) {
  PodWant next;
  std::vector<std::string> restarts;
  while (next.empty()) {
    for (const auto& [c, w] : now) {
      if (!p.managed && now.size() > 1 && rng() % 2 == 0) continue;  // this container stays
      Want n;
      const int cpu = pick(rng, 10, 50, 10);
      if (p.managed)
        n = requests_only(cpu, pick(rng, 32, 128, 16));
      else if (!p.restart_on_memory.empty()) {
        // Half the time only CPU changes: a RestartContainer memory that stays restarts nothing.
        const int mem = rng() % 2 ? pick(rng, 32, 128, 32)
                                  : static_cast<int>(bytes(w.requests.at("memory")) >> 20);
        n = guaranteed(cpu, mem);
      } else {
        n = burstable(cpu, pick(rng, 32, 128, 16));
      }
      if (n == w) continue;
      next[c] = n;
      const bool memory_changed = bytes(n.requests.at("memory")) != bytes(w.requests.at("memory"));
      if (memory_changed && std::count(p.restart_on_memory.begin(), p.restart_on_memory.end(), c)) {
        restarts.push_back(c);
      }
    }
  }
  return {next, restarts};
}

// When the fault comes, relative to issuing the resize: before it (the resize meets a process
// that is stopped, dead or starting again), within its first half second (admission, checkpoint,
// actuation), or later (the controller's next pass, status writes, a resize already done).
milliseconds draw_moment(std::mt19937_64& rng, bool managed) {
  switch (rng() % 3) {
    case 0:
      return milliseconds(-pick(rng, 10, 1000, 10));
    case 1:
      return milliseconds(pick(rng, 0, 500, 10));
    default:
      return milliseconds(pick(rng, 500, managed ? 4000 : 2500, 50));
  }
}

Scenario draw_scenario(std::mt19937_64& rng, int run, const std::vector<CampaignPod>& pods,
                       const std::map<std::string, PodWant>& desired, std::size_t processes) {
  Scenario s{.run = run};
  s.pod = rng() % pods.size();
  std::tie(s.resize, s.restarts) = draw_resize(rng, pods[s.pod], desired.at(pods[s.pod].key));
  s.process = rng() % processes;
  s.fault = rng() % 2 ? Fault::Kill : Fault::Stop;
  // The controller acts on its next pass (every 2 s) after the policy changed: a wider window.
  s.delay = draw_moment(rng, pods[s.pod].managed);
  s.pause = milliseconds(pick(rng, 200, 3000, 100));
  return s;
}

std::string describe(const PodWant& w) {
  std::string out;
  for (const auto& [c, r] : w) {
    out += " " + c + "{req=" + flow(r.requests) +
           (r.limits.empty() ? "" : " lim=" + flow(r.limits)) + "}";
  }
  return out;
}

std::string describe(const Scenario& s, const std::vector<CampaignPod>& pods,
                     const std::vector<Process>& procs) {
  std::ostringstream o;
  o << (pods[s.pod].managed ? "pin policy of " : "resize ") << pods[s.pod].key
    << describe(s.resize);
  if (!s.restarts.empty()) o << " (restart asked)";
  o << "; " << (s.fault == Fault::Kill ? "kill " : "stop ") << procs[s.process].name << " at "
    << (s.delay.count() >= 0 ? "+" : "") << s.delay.count() << " ms";
  if (s.fault == Fault::Stop) o << " for " << s.pause.count() << " ms";
  return o.str();
}

// ---- I/O: resizes, faults, snapshots ------------------------------------------------------

std::string resources_json(const Want& w) {
  bj::object r{{"requests", bj::object()}};
  for (const auto& [k, v] : w.requests) r["requests"].as_object()[k] = v;
  if (!w.limits.empty()) {
    r["limits"] = bj::object();
    for (const auto& [k, v] : w.limits) r["limits"].as_object()[k] = v;
  }
  return bj::serialize(r);
}

// A user's resize: one JSON patch of the changed containers to pods/{name}/resize.
void resize_pod(E2eCluster& cluster, const std::string& ns, const PodView& pod,
                const PodWant& change) {
  bj::array patch;
  for (std::size_t i = 0; i < pod.containers.size(); ++i) {
    auto c = change.find(pod.containers[i].name);
    if (c == change.end()) continue;
    patch.push_back({{"op", "replace"},
                     {"path", "/spec/containers/" + std::to_string(i) + "/resources"},
                     {"value", bj::parse(resources_json(c->second))}});
  }
  cluster.client().patch({kube::resources::kPods, ns, pod.name, "resize"}, kube::PatchType::Json,
                         bj::serialize(patch));
}

void pin_policy(E2eCluster& cluster, const std::string& ns, const Want& w) {
  bj::object pinned;
  for (const auto& [k, v] : w.requests) pinned[k] = v;
  bj::object policy{{"containerName", "*"}, {"minAllowed", pinned}, {"maxAllowed", pinned}};
  bj::object patch{{"spec", {{"resourcePolicy", {{"containerPolicies", bj::array{policy}}}}}}};
  cluster.client().patch({policy::resources::kVerticalScalingPolicies, ns, kManaged},
                         kube::PatchType::Merge, bj::serialize(patch));
}

std::string inject(const Process& p, Fault fault, milliseconds pause) {
  const pid_t pid = live_pid(p.pid_file);
  if (!pid) return p.name + " was not running at the moment of the fault";
  // kill -9 as a crash does; its supervisor starts it again.
  if (fault == Fault::Kill) {
    return stop_process(pid, SIGKILL, 10s) ? ""
                                           : "pid " + std::to_string(pid) + " outlived SIGKILL";
  }
  ::kill(pid, SIGSTOP);
  std::this_thread::sleep_for(pause);
  ::kill(pid, SIGCONT);
  return "";
}

Snapshot snapshot(E2eCluster& cluster, const std::string& ns,
                  const std::vector<CampaignPod>& pods) {
  Snapshot s;
  s.pods = cluster.all_pods();
  for (const PodView& p : s.pods) {
    if (!p.node.empty() && !s.allocatable.count(p.node)) {
      s.allocatable[p.node] = cluster.node_allocatable(p.node);
    }
  }
  for (const CampaignPod& c : pods) {
    const PodView* pod = find_pod(s, ns, c);
    if (!pod) continue;
    for (const ContainerView& container : pod->containers) {
      try {
        s.cgroups[cgroup_key(*pod, container.name)] =
            to_string(read_container_cgroup(*pod, container.name));
      } catch (const std::exception& e) {
        s.cgroups[cgroup_key(*pod, container.name)] = std::string("unreadable: ") + e.what();
      }
    }
  }
  return s;
}

PodBaseline baseline_of(const PodView& pod) {
  PodBaseline b{.uid = pod.uid};
  for (const ContainerView& c : pod.containers) {
    b.containers[c.name] = {c.container_id, c.restart_count};
  }
  return b;
}

// ---- the campaign -------------------------------------------------------------------------

class Campaign {
 public:
  Campaign(E2eCluster& cluster, const CampaignOptions& options)
      : cluster_(cluster),
        options_(options),
        work_(workloads(options.nodes)),
        procs_(processes(cluster, options.nodes)),
        rng_(options.seed) {}

  CampaignResult run() {
    TestNamespace ns(options_.ns);
    if (!ns.apply(work_.manifests)) {
      result_.breaks.push_back("the workloads could not be created");
      return result_;
    }
    std::vector<std::string> gaps = settle({}, 180s);
    if (!gaps.empty()) {
      result_.breaks.push_back("the workloads never settled before the first run: " + join(gaps));
      return result_;
    }
    take_baseline();
    for (int run = 1; run <= options_.runs; ++run) one_run(run);
    return result_;
  }

 private:
  static std::string join(const std::vector<std::string>& parts) {
    std::string out;
    for (const std::string& p : parts) out += (out.empty() ? "" : "; ") + p;
    return out;
  }

  // What keeps the cluster from having settled (every process up, every campaign pod at its
  // desired resources); empty when it has. Polls until then or `timeout`.
  std::vector<std::string> settle(const std::map<std::string, std::map<std::string, int>>& restarts,
                                  std::chrono::seconds timeout) {
    const auto deadline = Clock::now() + timeout;
    std::vector<std::string> gaps;
    while (true) {
      gaps = gaps_now(restarts);
      if (gaps.empty() || Clock::now() > deadline) return gaps;
      std::this_thread::sleep_for(500ms);
    }
  }

  std::vector<std::string> gaps_now(
      const std::map<std::string, std::map<std::string, int>>& restarts) {
    std::vector<std::string> gaps;
    for (const Process& p : procs_) {
      if (!live_pid(p.pid_file)) gaps.push_back(p.name + " not running");
    }
    try {
      last_ = snapshot(cluster_, options_.ns, work_.pods);
    } catch (const std::exception& e) {
      gaps.push_back(std::string("the API: ") + e.what());
      return gaps;
    }
    for (const CampaignPod& p : work_.pods) {
      const PodView* pod = find_pod(last_, options_.ns, p);
      if (!pod) {
        gaps.push_back(p.key + ": no single pod");
        continue;
      }
      auto r = restarts.find(p.key);
      for (const std::string& g :
           settle_gaps(last_, *pod, work_.desired.at(p.key),
                       r == restarts.end() ? std::map<std::string, int>{} : r->second)) {
        gaps.push_back(p.key + ": " + g);
      }
    }
    return gaps;
  }

  void take_baseline() {
    for (const CampaignPod& p : work_.pods) {
      if (const PodView* pod = find_pod(last_, options_.ns, p))
        baseline_[p.key] = baseline_of(*pod);
    }
  }

  // A user retries while the API server is away (killed, stopped, starting again); the patch
  // replaces values, so sending it twice is harmless. An answer that refuses it is returned.
  std::string issue_retrying(const Scenario& s) {
    const auto deadline = Clock::now() + 60s;
    while (true) {
      std::string error;
      try {
        issue(s);
        return "";
      } catch (const kube::ApiError& e) {
        if (e.code() < 500) return std::string("the resize was refused: ") + e.what();
        error = e.what();
      } catch (const std::exception& e) {
        error = e.what();
      }
      if (Clock::now() > deadline) return "the resize could not be sent for 60 s: " + error;
      std::this_thread::sleep_for(200ms);
    }
  }

  void issue(const Scenario& s) {
    const CampaignPod& p = work_.pods[s.pod];
    if (p.managed) {
      pin_policy(cluster_, options_.ns, s.resize.at("app"));
    } else {
      const PodView* pod = find_pod(last_, options_.ns, p);
      if (!pod) throw std::runtime_error(p.key + " is gone");
      resize_pod(cluster_, options_.ns, *pod, s.resize);
    }
    for (const auto& [c, w] : s.resize) work_.desired[p.key][c] = w;  // acknowledged: desired
  }

  void one_run(int run) {
    const Scenario s = draw_scenario(rng_, run, work_.pods, work_.desired, procs_.size());
    const std::string what = describe(s, work_.pods, procs_);
    const CampaignPod& p = work_.pods[s.pod];
    const auto started = Clock::now();
    std::string fault_error;
    std::thread injector([&] {
      std::this_thread::sleep_for(std::max(s.delay, milliseconds(0)));
      fault_error = inject(procs_[s.process], s.fault, s.pause);
    });
    std::this_thread::sleep_for(std::max(-s.delay, milliseconds(0)));
    const std::string issue_error = issue_retrying(s);
    injector.join();
    for (const std::string& error : {fault_error, issue_error}) {
      if (!error.empty()) record(s, what, {error});
    }
    if (!issue_error.empty()) return;
    ++result_.faults[(s.fault == Fault::Kill ? "kill " : "stop ") + procs_[s.process].name];
    std::map<std::string, std::map<std::string, int>> at_least;
    for (const std::string& c : s.restarts) {
      at_least[p.key][c] = baseline_[p.key].containers[c].second + 1;
    }
    const std::vector<std::string> unsettled = settle(at_least, options_.settle_timeout);
    const auto took = std::chrono::duration_cast<milliseconds>(Clock::now() - started);
    result_.settle_total += took;
    ++result_.runs;
    std::vector<std::string> breaks = invariant_breaks(last_, options_.ns, work_.pods, baseline_,
                                                       work_.desired, {{p.key, s.restarts}});
    if (!unsettled.empty()) {
      breaks.push_back("did not settle within " + std::to_string(options_.settle_timeout.count()) +
                       " s: " + join(unsettled));
    }
    if (options_.log) {
      *options_.log << "run " << run << ": " << what << "; " << (breaks.empty() ? "ok" : "BROKEN")
                    << " after " << took.count() << " ms" << (breaks.empty() ? "" : ": ")
                    << join(breaks) << std::endl;
    }
    if (!breaks.empty()) record(s, what, breaks);
    take_baseline();  // the next run starts from what is there now
  }

  void record(const Scenario& s, const std::string& what, const std::vector<std::string>& breaks) {
    std::string pods;
    for (const CampaignPod& p : work_.pods) {
      if (const PodView* pod = find_pod(last_, options_.ns, p)) pods += "\n      " + pod->summary();
    }
    result_.breaks.push_back("seed " + std::to_string(options_.seed) + " run " +
                             std::to_string(s.run) + ": " + what + ":\n    " + join(breaks) +
                             "\n    pods:" + pods);
  }

  E2eCluster& cluster_;
  const CampaignOptions& options_;
  Workloads work_;
  std::vector<Process> procs_;
  std::mt19937_64 rng_;
  Snapshot last_;
  std::map<std::string, PodBaseline> baseline_;
  CampaignResult result_;
};

}  // namespace

CampaignResult run_fault_campaign(E2eCluster& cluster, const CampaignOptions& options) {
  return Campaign(cluster, options).run();
}

}  // namespace tailor::e2e
