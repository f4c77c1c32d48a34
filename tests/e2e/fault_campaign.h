// The fault campaign of issue 16, on the e2e environment (`tailor cluster up`: real containerd +
// runc). Each run draws from a seeded generator
//   - an in-place resize: a user's pods/resize of a Burstable pod (two containers, NotRequired)
//     or of a Guaranteed pod whose memory has the RestartContainer policy, or a new pinned target
//     (minAllowed = maxAllowed) the controller applies in place to a Deployment's pod;
//   - a process: tailor-cluster, tailor-controller, a node's tailor-node-agent or its containerd;
//   - a fault: SIGKILL, or SIGSTOP and SIGCONT after a pause;
//   - the moment, relative to issuing the resize: up to 1 s before it (the resize meets a process
//     that is stopped or starting again; the patch is retried while the API server is away),
//     within its first half second, or later (up to 2.5 s; 4 s for the controller's pass).
// Killed processes come back by themselves (`tailor supervise`, containerd's included). Once
// settled (or after the settle timeout) the invariants are checked:
//   - no pod lost: the same pods, same uids, none deleting;
//   - no container restarted that was not asked to: container ids and restartCount unchanged,
//     except a container whose RestartContainer resource was resized (exactly one new run; see
//     restarted_as_asked);
//   - on each node, the sum of the allocated requests <= the node's allocatable;
//   - desired = allocated = actual = the container's cgroup files, no resize condition left,
//     and desired = what was asked (the patch, or the controller's pinned target).
// Breaks are returned, never thrown: the caller (bench/fault_campaign.cpp, fault_campaign_test)
// decides what a break means.
#pragma once

#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <map>
#include <string>
#include <vector>

#include "tests/e2e/e2e_cluster.h"

namespace tailor::e2e {

struct CampaignOptions {
  std::uint64_t seed = 1;
  int runs = 1;
  std::string ns = "fault-campaign";
  // A Burstable and a Guaranteed pod per node; the controller's Deployment on the last node.
  // Faults hit tailor-cluster, tailor-controller and these nodes' agents and containerds.
  std::vector<std::string> nodes{kBigNode};
  std::chrono::seconds settle_timeout{90};
  std::ostream* log = nullptr;  // one line per run, when set
};

struct CampaignResult {
  int runs = 0;
  std::map<std::string, int> faults{};  // "kill tailor-cluster" -> how many
  std::vector<std::string> breaks{};    // "seed S run N: <scenario>: <what broke>"
  std::chrono::milliseconds settle_total{0};
};

// Creates the namespace and workloads, waits until they settle, then does the runs.
CampaignResult run_fault_campaign(E2eCluster& cluster, const CampaignOptions& options);

// ---- the decisions, pure (tested in fault_campaign_test.cpp) ------------------------------

// One container's desired resources.
struct Want {
  Resources requests{}, limits{};
  bool operator==(const Want&) const = default;
};
using PodWant = std::map<std::string, Want>;  // container -> resources

// Resources as a YAML flow map ("{cpu: 50m, memory: 64Mi}"), for manifests and messages.
std::string flow(const Resources& r);

// A workload pod as the campaign knows it: found by name, or by name prefix for the
// Deployment's pod.
struct CampaignPod {
  std::string key{};  // pod name, or the Deployment's name for its pod ("managed")
  bool managed = false;
  std::vector<std::string> restart_on_memory{};  // containers with memory: RestartContainer
};

// What one pod looked like once settled: its uid and, per container, id and restartCount.
struct PodBaseline {
  std::string uid{};
  std::map<std::string, std::pair<std::string, int>> containers{};  // name -> (id, restarts)
};

// What the campaign reads after a run: every pod of the cluster, the nodes' allocatable and the
// cgroup files of the campaign's containers ("ns/pod/container" -> to_string(CgroupFiles), or the
// read error).
struct Snapshot {
  std::vector<PodView> pods{};
  std::map<std::string, Resources> allocatable{};
  std::map<std::string, std::string> cgroups{};
};

// The campaign pod `p` in namespace `ns` of a snapshot: exactly one pod not being deleted, or
// nullptr (none, or a Deployment with two).
const PodView* find_pod(const Snapshot& s, const std::string& ns, const CampaignPod& p);
std::string cgroup_key(const PodView& pod, const std::string& container);

// What still keeps `pod` from having settled at `want` (empty: settled): not Running and Ready,
// a resize condition, a container whose desired, allocated, actual resources or cgroup files
// differ from `want`, or fewer restarts than `restarts_at_least`.
std::vector<std::string> settle_gaps(const Snapshot& s, const PodView& pod, const PodWant& want,
                                     const std::map<std::string, int>& restarts_at_least);

// No container restarted that was not asked to: unasked, the same container id and restartCount;
// asked, a new container that is the only run since (restartCount + 1, or + 2 when the attempt in
// between never ran: a start the runtime lost, which the kubelet counts too).
bool restarted_as_asked(const ContainerView& c, const std::string& id_before, int restarts_before,
                        bool restart_asked);

// The invariants after a run (see the top of this file); empty when they all hold.
// `restarted` names the containers of `p` asked to restart in this run.
std::vector<std::string> invariant_breaks(
    const Snapshot& s, const std::string& ns, const std::vector<CampaignPod>& pods,
    const std::map<std::string, PodBaseline>& before, const std::map<std::string, PodWant>& desired,
    const std::map<std::string, std::vector<std::string>>& restarted);

// Requests summed over the pods on each node that hold an allocation (not Succeeded/Failed),
// checked against the node's allocatable: one message per node and resource over it.
std::vector<std::string> overcommitted_nodes(const Snapshot& s);

}  // namespace tailor::e2e
