// The end-to-end environment every test of e2e_tests shares: ONE real `tailor cluster up` per
// test process (a GoogleTest global environment, registered by e2e_cluster.cpp; ctest runs the
// binary whole for that reason), torn down with `tailor cluster down` after the last test.
//
// What runs (the build's own binaries, found in ../bin next to tests/, or $TAILOR_BIN_DIR):
//   tailor-cluster, tailor-controller (pass every 2 s, usage + webhook registered), and one
//   tailor-node-agent on a private real containerd per node (usage sampled every 1 s, reported
//   every 2 s):
//     kSmallNode  tailor-node-1  cpu=1, memory=1Gi
//     kBigNode    tailor-node-2  cpu=2, memory=6Gi
// Once up, the controller and the agents are restarted under the chart's ServiceAccounts (its
// RBAC applied, tokens from TokenRequest; service_accounts.h), and tailor-cluster records every
// authorization decision in DIR/audit.log: every test runs on the chart's least privilege.
// The environment's directory (logs: controller.log, cluster.log, node-N/agent.log) is printed at
// start; it is removed after a green run and kept after a failing one. TAILOR_E2E_KEEP=1 leaves
// everything running (for a look with `KUBECONFIG=DIR/kubeconfig kubectl ...`);
// TAILOR_E2E_ATTACH=DIR runs the tests on an environment already up in DIR (left running).
//
// Conventions for tests: each test works in its own TestNamespace; its Deployments, Pods and
// policies (VerticalScalingPolicy, VerticalPodAutoscaler) come from workload_manifests.h; waits
// go through wait_until() (bounded, and a timeout prints what was last seen), or the waits below
// built on it (pods Ready, an OOM kill); pods, policies and events are read back from the API as
// the plain views below, cgroups from /sys/fs/cgroup (v1, cgroupfs driver).
// Capacity: scenarios_test.cpp fills kSmallNode on purpose (Deferred / Infeasible resizes);
// other tests pin their pods to kBigNode (nodeSelector kubernetes.io/hostname) with small
// requests (≤ 100m CPU, ≤ 256Mi memory each) so the scenarios' arithmetic holds.
// Requires root and /usr/bin/kubectl; fails loudly without them.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tailor::kube {
class RestClient;
}

namespace tailor::e2e {

inline constexpr const char* kSmallNode = "tailor-node-1";
inline constexpr const char* kBigNode = "tailor-node-2";
inline constexpr std::chrono::seconds kPassInterval{2};

// A file's whole text; "" when it cannot be read.
std::string read_text(const std::filesystem::path& file);

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

using Resources = std::map<std::string, std::string>;  // "cpu" -> "250m", as the API wrote it

struct ContainerView {
  std::string name{};
  std::string container_id{};      // without the "containerd://" prefix; "" until started
  Resources requests{}, limits{};  // desired: spec.containers[].resources
  Resources allocated{};           // status.containerStatuses[].allocatedResources
  Resources actual_requests{}, actual_limits{};  // status.containerStatuses[].resources
  int restart_count = 0;
  bool running = false;
  // lastState.terminated: the attempt before this one, and whether it ever ran (a start the
  // runtime lost, e.g. containerd killed during StartContainer, has no startedAt).
  bool last_terminated = false;
  bool last_started = false;
};

struct ConditionView {
  std::string type{}, status{}, reason{}, message{};
};

struct PodView {
  std::string ns{}, name{}, uid{}, node{}, phase{}, qos_class{};
  std::int64_t generation = 0;
  bool deleting = false;
  std::vector<ContainerView> containers{};
  std::vector<ConditionView> conditions{};

  const ContainerView* container(const std::string& name) const;
  const ConditionView* condition(const std::string& type) const;
  bool ready() const;
  // One line for failure messages: name, uid, node, phase, requests, resize conditions.
  std::string summary() const;
};

struct ContainerRecommendationView {
  std::string container;
  Resources target, lower_bound, upper_bound, uncapped_target;
};

struct PolicyView {
  std::string mode;  // spec.updatePolicy.mode as stored
  std::vector<ConditionView> conditions;
  std::vector<ContainerRecommendationView> recommendations;

  const ConditionView* condition(const std::string& type) const;
  const ContainerRecommendationView* recommendation(const std::string& container) const;
  std::string summary() const;
};

struct EventView {
  std::string type{}, reason{}, message{}, object_kind{}, object_name{}, object_uid{};
  int count = 1;
};

// Quantities as numbers, for comparing what different writers spelled differently.
std::int64_t milli_cpu(const std::string& quantity);
std::int64_t bytes(const std::string& quantity);

// A container's cgroup v1 files, and what the kubelet's arithmetic makes of its resources
// (shares = request milli-CPU * 1024 / 1000, at least 2; quota = limit milli-CPU * 100 over a
// 100 ms period, -1 without a limit; memory limit in bytes, "unlimited" without one).
struct CgroupFiles {
  std::int64_t cpu_shares = 0;
  std::int64_t cpu_quota = 0;
  std::int64_t cpu_period = 0;
  std::int64_t memory_limit = 0;
  bool operator==(const CgroupFiles&) const = default;
};
std::string to_string(const CgroupFiles& files);
// Reads /sys/fs/cgroup/{cpu,memory}/kubepods[/burstable|/besteffort]/pod<uid>/<container id>.
// Throws std::runtime_error naming the file when it is missing.
CgroupFiles read_container_cgroup(const PodView& pod, const std::string& container);
// The container's cgroup directory below /sys/fs/cgroup/<controller> (v1, cgroupfs driver).
std::filesystem::path container_cgroup_dir(const PodView& pod, const std::string& container,
                                           const std::string& controller);
// The host pids of the container's processes (its cgroup.procs).
std::vector<int> container_processes(const PodView& pod, const std::string& container);
// The files a container with these requests/limits should have (memory unlimited when absent).
CgroupFiles expected_container_cgroup(const Resources& requests, const Resources& limits);

class E2eCluster {
 public:
  // The environment of this process. Throws (failing the calling test) when it is not up.
  static E2eCluster& get();
  // The same, up or not (for the global environment that brings it up and down).
  static E2eCluster& get_unchecked();

  const std::filesystem::path& dir() const { return dir_; }
  std::string kubeconfig() const { return (dir_ / "kubeconfig").string(); }
  const std::filesystem::path& bin_dir() const { return bin_dir_; }
  kube::RestClient& client();

  // The real kubectl with the environment's kubeconfig; arguments go through the shell (quote
  // JSONPath with single quotes). Thread-safe.
  CommandResult kubectl(const std::string& args) const;
  // The build's `tailor` CLI with these arguments (e.g. {"cluster", "down", "--dir", ...}).
  CommandResult tailor(const std::vector<std::string>& args) const;

  // tailor-controller's /metrics text, and one series' value ("name{labels}" exactly as
  // exposed, or a bare name); nullopt when the series is absent.
  std::string controller_metrics() const;
  std::optional<double> controller_metric(const std::string& series) const;
  // Completed controller passes (tailor_controller_pass_duration_seconds_count).
  double controller_passes() const;
  // The last lines of DIR/controller.log, for failure messages.
  std::string controller_log_tail(int lines = 30) const;

  // Every pod of the cluster (all namespaces, deleted ones included), and a node's
  // status.allocatable: what the fault campaign's node-wide invariants are computed from.
  std::vector<PodView> all_pods();
  Resources node_allocatable(const std::string& node);

  // Sets (value) or removes (nullopt) a label on a node.
  void label_node(const std::string& node, const std::string& key,
                  const std::optional<std::string>& value);

  // Lifecycle, driven by the global environment.
  void up();
  void down(bool keep_dir);
  bool is_up() const { return up_; }

  E2eCluster();
  ~E2eCluster();

 private:
  std::filesystem::path dir_, bin_dir_;
  std::unique_ptr<kube::RestClient> client_;
  bool up_ = false;
  bool attached_ = false;  // TAILOR_E2E_ATTACH: someone else's environment, never taken down
};

// A namespace for one test: created at construction, deleted without waiting at destruction.
class TestNamespace {
 public:
  explicit TestNamespace(std::string name);
  ~TestNamespace();
  TestNamespace(const TestNamespace&) = delete;
  TestNamespace& operator=(const TestNamespace&) = delete;

  const std::string& name() const { return name_; }

  // kubectl apply -n NAME of a YAML manifest (written to a file in the environment's dir);
  // adds a test failure (with kubectl's stderr) and returns false when kubectl fails.
  bool apply(const std::string& yaml) const;
  // The same, as kubectl answered, for manifests the API server may refuse.
  CommandResult try_apply(const std::string& yaml) const;
  CommandResult kubectl(const std::string& args) const;  // with -n NAME

  std::optional<PodView> pod(const std::string& name) const;
  std::vector<PodView> pods(const std::string& label_selector = "") const;  // not deleted ones
  std::optional<PolicyView> policy(const std::string& name) const;          // VerticalScalingPolicy
  std::optional<PolicyView> vpa(const std::string& name) const;  // VerticalPodAutoscaler (mode:
                                                                 // its updateMode)
  std::vector<EventView> events() const;

 private:
  std::string name_;
};

// Polls `probe` (every 250 ms) until it returns true or `timeout` passes. The probe describes what
// it saw in `seen`; on timeout a test failure names `what` and the last `seen`. Returns whether
// the condition was met (use ASSERT_TRUE(wait_until(...))). Exceptions in the probe count as
// "not yet" and their message is what was seen.
bool wait_until(const std::string& what, std::chrono::seconds timeout,
                const std::function<bool(std::string& seen)>& probe);

// Installs enough of VPA's CRD (autoscaling.k8s.io/v1 VerticalPodAutoscaler) for its objects to be
// stored, listed and watched, and waits until it is Established. Cluster-scoped, it stays for the
// rest of the run (installing it again is a no-op). Adds a test failure and returns false when
// kubectl fails.
bool install_vpa_crd(const TestNamespace& ns);

// The running pods matching `selector` in `ns`: exactly one Ready pod (for single-replica
// workloads), else nullopt.
std::optional<PodView> only_ready_pod(const TestNamespace& ns, const std::string& selector);

// Waits (wait_until, as `what`) until `selector` matches exactly `count` pods in `ns`, each Ready,
// and returns them: a Deployment's replicas once they all run. Empty on timeout.
std::vector<PodView> wait_for_ready_pods(const TestNamespace& ns, const std::string& what,
                                         const std::string& selector, std::size_t count,
                                         std::chrono::seconds timeout);
// The same for the pod named `name`; nullopt on timeout.
std::optional<PodView> wait_for_ready_pod(const TestNamespace& ns, const std::string& what,
                                          const std::string& name, std::chrono::seconds timeout);

// A container's kill by the kernel's OOM killer, as the pod status tells it (lastState.terminated
// reason OOMKilled): which pod, and when.
struct OomKill {
  std::string pod_uid;
  std::string finished_at;  // RFC 3339, as written
};
// Waits until the first pod `selector` matches reports its first container OOM-killed.
std::optional<OomKill> wait_for_oom_kill(const TestNamespace& ns, const std::string& selector,
                                         std::chrono::seconds timeout);

}  // namespace tailor::e2e
