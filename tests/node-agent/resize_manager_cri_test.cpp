// The resize manager over its real runtime edge (CriPodResources) with a fake CRI and a fake
// cgroup v1 tree: resizePolicy RestartContainer, and bad input — a container missing from the
// runtime, CRI errors, a read-only pod cgroup file, absurd quantities. Each ends in a pod status
// and an event that say what is wrong, never in a crash or a silent success.
#include "node-agent/resize_manager_cri.h"

#include <gtest/gtest.h>
#include <linux/capability.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "controller/kube/model/qos.h"
#include "node-agent/allocation_state.h"
#include "node-agent/resize_manager_loop.h"
#include "tests/node-agent/fake_cri.h"
#include "tests/node-agent/fake_cri_server.h"
#include "tests/node-agent/resize_manager_fakes.h"

namespace tailor::kube::node::testing {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

constexpr std::int64_t kMi = 1024 * 1024;

// What the embedded pod runtime does for a RestartContainer resize, on the fake CRI: stop the
// running attempt; start attempt + 1 with the new resources.
class FakeRestarter : public ContainerRestarter {
 public:
  explicit FakeRestarter(FakeCri& cri) : cri_(cri) {}
  void stop_for_restart(const Pod&, const std::string& name) override {
    cri_.stop_container(cri_.latest(name).status.id, 1);
  }
  void start_after_restart(const Pod&, const std::string& name,
                           const ResourceAmounts& allocated) override {
    const FakeCri::Container latest = cri_.latest(name);
    ContainerSpec spec = latest.spec;
    ++spec.attempt;
    spec.resources = to_linux_resources(container_cgroup_values(allocated));
    cri_.start_container(cri_.create_container(latest.sandbox_id, spec, {}));
  }

 private:
  FakeCri& cri_;
};

// Root writes through file modes: while it lives, this thread lacks CAP_DAC_OVERRIDE, so a file
// with mode 0444 is read-only to the agent's writes as it would be to a non-root agent.
class ReadOnlyFile {
 public:
  explicit ReadOnlyFile(fs::path file) : file_(std::move(file)) {
    fs::permissions(file_, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
    if (::geteuid() == 0) set_dac_override(false);
  }
  ~ReadOnlyFile() {
    if (::geteuid() == 0) set_dac_override(true);
    fs::permissions(file_, fs::perms::owner_read | fs::perms::owner_write);
  }

 private:
  static void set_dac_override(bool on) {
    __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct data[2]{};
    if (::syscall(SYS_capget, &header, data) != 0) throw std::runtime_error("capget failed");
    const unsigned bit = 1u << CAP_DAC_OVERRIDE;
    data[0].effective = on ? (data[0].effective | bit) : (data[0].effective & ~bit);
    if (::syscall(SYS_capset, &header, data) != 0) throw std::runtime_error("capset failed");
  }
  fs::path file_;
};

class ResizeManagerCriTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("tailor-resize-cri-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    start_manager(&restarter_);
  }
  void TearDown() override { fs::remove_all(root_); }

  void start_manager(ContainerRestarter* restarter) { start_manager(cri_, restarter); }
  void start_manager(RuntimeService& cri, ContainerRestarter* restarter) {
    runtime_ = std::make_unique<CriPodResources>(
        cri, CriPodResourcesOptions{{root_, CgroupVersion::V1}, CgroupDriver::Cgroupfs, restarter});
    ResizeManagerOptions options;
    options.node_allocatable = {{"cpu", Quantity::parse("4")}, {"memory", Quantity::parse("4Gi")}};
    options.now = [this] { return clock_; };
    manager_ = std::make_unique<ResizeManager>(options, *runtime_, status_, events_, checkpoint_,
                                               metrics_);
  }

  static void put(const fs::path& file, const std::string& value) {
    fs::create_directories(file.parent_path());
    std::ofstream(file) << value << "\n";
  }
  static std::string get(const fs::path& file) {
    std::ifstream in(file);
    std::string value;
    std::getline(in, value);
    return value;
  }
  // A cgroup directory pair (cpu, memory) as the kernel shows one, with these values.
  void make_cgroup(const std::string& path, const CgroupValues& values) {
    const fs::path cpu = root_ / "cpu" / path.substr(1), memory = root_ / "memory" / path.substr(1);
    put(cpu / "cpu.shares", std::to_string(values.cpu_shares.value_or(2)));
    put(cpu / "cpu.cfs_period_us", "100000");
    put(cpu / "cpu.cfs_quota_us", std::to_string(values.cpu_quota_us.value_or(-1)));
    put(memory / "memory.limit_in_bytes",
        std::to_string(values.memory_limit_bytes.value_or(9223372036854771712)));
    put(memory / "memory.usage_in_bytes", std::to_string(4 * kMi));
  }
  std::string pod_path(const Pod& pod) { return pod_cgroup_path_of(pod, CgroupDriver::Cgroupfs); }
  fs::path pod_file(const Pod& pod, const char* controller, const char* name) {
    return root_ / controller / pod_path(pod).substr(1) / name;
  }

  // Admits the pod and runs its containers in the fake runtime with the allocation, under a pod
  // cgroup sized as the pod runtime sizes it.
  Pod run(const Pod& pod) {
    manager_->sync_pod(pod);
    const auto allocation = manager_->allocation(pod.metadata.uid);
    EXPECT_TRUE(allocation);
    const std::string sandbox = cri_.run_pod_sandbox({.name = pod.metadata.name});
    std::vector<ResourceAmounts> all;
    for (const AllocatedContainer& c : allocation->containers) {
      const ResourceAmounts amounts = amounts_of(c.resources);
      all.push_back(amounts);
      ContainerSpec spec{.name = c.name, .image = "busybox"};
      spec.labels["io.kubernetes.pod.uid"] = pod.metadata.uid;
      spec.resources = to_linux_resources(container_cgroup_values(amounts));
      const std::string id = cri_.create_container(sandbox, spec, {});
      cri_.start_container(id);
      make_cgroup(container_cgroup_path(pod_path(pod), id, CgroupDriver::Cgroupfs),
                  container_cgroup_values(amounts));
    }
    make_cgroup(pod_path(pod), pod_cgroup_values(all, {}, pod_qos(pod)));
    manager_->sync_pod(pod);
    return pod;
  }

  const PodCondition* condition(const Pod& pod, std::string_view type) {
    return status_.condition(pod.metadata.uid, type);
  }
  std::vector<std::string> events_with(const std::string& reason) {
    std::vector<std::string> out;
    for (const std::string& e : events_.recorded) {
      if (e.find(" " + reason + ": ") != std::string::npos) out.push_back(e);
    }
    return out;
  }
  // The backoff has passed: the manager tries the failed resize again.
  void retry() {
    clock_ += 1min;
    manager_->retry_failed();
  }

  fs::path root_;
  FakeCri cri_;
  FakeRestarter restarter_{cri_};
  std::unique_ptr<CriPodResources> runtime_;
  TimePoint clock_ = parse_rfc3339("2026-01-01T00:00:10Z");
  FakeStatus status_;
  FakeEvents events_;
  FakeCheckpoint checkpoint_;
  metrics::Registry registry_;
  NodeAgentMetrics metrics_{registry_};
  std::unique_ptr<ResizeManager> manager_;
};

Pod with_memory_policy(Pod pod, const std::string& container, const std::string& policy) {
  for (Container& c : pod.spec.containers) {
    if (c.name == container) c.resize_policy = {{"memory", policy}};
  }
  return pod;
}

TEST_F(ResizeManagerCriTest, RestartContainerPolicyRestartsOnlyThatContainer) {
  Pod pod = make_pod("web", {container("java", {"100m", "200m", "100Mi", "100Mi"}),
                             container("sidecar", {"100m", "200m", "50Mi", "50Mi"})});
  pod = with_memory_policy(pod, "java", "RestartContainer");
  pod = with_memory_policy(pod, "sidecar", "NotRequired");
  run(pod);
  const std::string old_java = cri_.latest("java").status.id;
  const std::string sidecar = cri_.latest("sidecar").status.id;
  cri_.calls.clear();

  Pod next = resized(pod, "java", {"100m", "200m", "200Mi", "200Mi"});
  next = resized(next, "sidecar", {"100m", "200m", "80Mi", "80Mi"});
  manager_->sync_pod(next);

  // Stop, resize the pod and the sibling in place, then start the new attempt.
  const std::string new_java = cri_.latest("java").status.id;
  EXPECT_EQ(cri_.calls,
            (std::vector<std::string>{"StopContainer " + old_java + " 1",
                                      "UpdateContainerResources " + sidecar,
                                      "CreateContainer java 1", "StartContainer " + new_java}));
  EXPECT_EQ(cri_.latest("java").spec.attempt, 1u);
  EXPECT_EQ(cri_.latest("java").status.resources->memory_limit_in_bytes, 200 * kMi);
  EXPECT_EQ(cri_.latest("sidecar").spec.attempt, 0u);
  EXPECT_EQ(cri_.latest("sidecar").status.resources->memory_limit_in_bytes, 80 * kMi);
  EXPECT_EQ(get(pod_file(pod, "memory", "memory.limit_in_bytes")), std::to_string(280 * kMi));
  EXPECT_EQ(condition(pod, kPodResizeInProgress), nullptr);
  EXPECT_EQ(events_.reasons, (std::vector<std::string>{"ResizeStarted", "ResizeCompleted"}));
  EXPECT_FALSE(manager_->allocation(pod.metadata.uid)->resize_in_progress);
}

TEST_F(ResizeManagerCriTest, RestartPolicyOnAnUnchangedResourceRestartsNothing) {
  Pod pod = make_pod("web", {container("java", {"100m", "200m", "100Mi", "100Mi"})});
  pod = with_memory_policy(pod, "java", "RestartContainer");
  run(pod);
  cri_.calls.clear();
  manager_->sync_pod(resized(pod, "java", {"300m", "400m", "100Mi", "100Mi"}));
  EXPECT_EQ(cri_.calls,
            std::vector<std::string>{"UpdateContainerResources " + cri_.latest("java").status.id});
  EXPECT_EQ(cri_.latest("java").spec.attempt, 0u);
  EXPECT_EQ(condition(pod, kPodResizeInProgress), nullptr);
}

TEST_F(ResizeManagerCriTest, RestartWithoutAPodRuntimeIsAnError) {
  start_manager(nullptr);
  Pod pod = make_pod("web", {container("java", {"100m", "200m", "100Mi", "100Mi"})});
  pod = with_memory_policy(pod, "java", "RestartContainer");
  run(pod);
  manager_->sync_pod(resized(pod, "java", {"100m", "200m", "200Mi", "200Mi"}));
  const PodCondition* in_progress = condition(pod, kPodResizeInProgress);
  ASSERT_NE(in_progress, nullptr);
  EXPECT_EQ(in_progress->reason, "Error");
  EXPECT_EQ(in_progress->message,
            "container \"java\" of pod default/web needs a restart (resizePolicy "
            "RestartContainer), and this node agent has no pod runtime to restart it");
  EXPECT_EQ(cri_.latest("java").spec.attempt, 0u);
}

// The runtime lost a container (removed behind the agent's back): the resize is not reported
// as done; it says which container is missing, and completes once the container is back.
TEST_F(ResizeManagerCriTest, ContainerMissingFromTheRuntimeIsAnErrorNamingIt) {
  const Pod pod = make_pod("web", {container("app", {"100m", "200m", "100Mi", "100Mi"}),
                                   container("ghost", {"100m", "200m", "100Mi", "100Mi"})});
  run(pod);
  const FakeCri::Container ghost = cri_.latest("ghost");
  cri_.containers.erase(ghost.status.id);
  manager_->sync_pod(resized(pod, "ghost", {"200m", "400m", "100Mi", "100Mi"}));
  const PodCondition* in_progress = condition(pod, kPodResizeInProgress);
  ASSERT_NE(in_progress, nullptr);
  EXPECT_EQ(in_progress->reason, "Error");
  EXPECT_EQ(in_progress->message,
            "container \"ghost\" of pod default/web does not exist in the runtime");
  EXPECT_EQ(events_with("ResizeError"),
            std::vector<std::string>{"web Warning ResizeError: container \"ghost\" of pod "
                                     "default/web does not exist in the runtime"});

  // The pod runtime starts it again, with the allocation: the retry finds it and completes.
  ContainerSpec spec = ghost.spec;
  spec.attempt = 1;
  spec.resources = to_linux_resources(container_cgroup_values(
      amounts_of(find_allocation(*manager_->allocation(pod.metadata.uid), "ghost")->resources)));
  cri_.start_container(cri_.create_container(ghost.sandbox_id, spec, {}));
  retry();
  EXPECT_EQ(condition(pod, kPodResizeInProgress), nullptr);
  EXPECT_FALSE(manager_->allocation(pod.metadata.uid)->resize_in_progress);
}

TEST_F(ResizeManagerCriTest, CriErrorsAreReportedAndRetried) {
  const Pod pod = make_pod("web", {container("app", {"100m", "200m", "100Mi", "100Mi"})});
  run(pod);
  const std::string id = cri_.latest("app").status.id;
  cri_.errors.emplace("UpdateContainerResources",
                      CriError(CriErrorKind::Other, "UpdateContainerResources",
                               "CRI UpdateContainerResources (container " + id +
                                   "): runc did not terminate successfully: exit status 1"));
  manager_->sync_pod(resized(pod, "app", {"300m", "400m", "100Mi", "100Mi"}));
  const PodCondition* in_progress = condition(pod, kPodResizeInProgress);
  ASSERT_NE(in_progress, nullptr);
  EXPECT_EQ(in_progress->reason, "Error");
  EXPECT_EQ(in_progress->message, "CRI UpdateContainerResources (container " + id +
                                      "): runc did not terminate successfully: exit status 1");
  EXPECT_EQ(events_with("ResizeError").size(), 1u);

  // The runtime is unreachable on the retry: the message follows, a new kind of event.
  cri_.errors.clear();
  cri_.errors.emplace("ListContainers", CriError(CriErrorKind::Unavailable, "ListContainers",
                                                 "CRI ListContainers: runtime unavailable"));
  retry();
  EXPECT_EQ(condition(pod, kPodResizeInProgress)->message,
            "CRI ListContainers: runtime unavailable");
  EXPECT_EQ(events_with("ResizeError").size(), 2u);

  cri_.errors.clear();
  retry();
  EXPECT_EQ(condition(pod, kPodResizeInProgress), nullptr);
  EXPECT_EQ(cri_.latest("app").status.resources->cpu_quota, 40000);
}

TEST_F(ResizeManagerCriTest, ReadOnlyPodCgroupFileIsAnErrorNamingTheFile) {
  const Pod pod = make_pod("web", {container("app", {"100m", "200m", "100Mi", "100Mi"})});
  run(pod);
  const fs::path file = pod_file(pod, "memory", "memory.limit_in_bytes");
  {
    const ReadOnlyFile read_only(file);
    manager_->sync_pod(resized(pod, "app", {"100m", "200m", "200Mi", "200Mi"}));
  }
  const PodCondition* in_progress = condition(pod, kPodResizeInProgress);
  ASSERT_NE(in_progress, nullptr);
  EXPECT_EQ(in_progress->reason, "Error");
  EXPECT_EQ(in_progress->message, "writing " + std::to_string(200 * kMi) + " to " + file.string() +
                                      ": Permission denied");
  EXPECT_EQ(get(file), std::to_string(100 * kMi));  // the pod limit was raised first: nothing else
  EXPECT_EQ(cri_.latest("app").status.resources->memory_limit_in_bytes, 100 * kMi);
  EXPECT_EQ(events_with("ResizeError").size(), 1u);

  retry();  // writable again
  EXPECT_EQ(condition(pod, kPodResizeInProgress), nullptr);
  EXPECT_EQ(get(file), std::to_string(200 * kMi));
}

struct AbsurdCase {
  const char* name;
  Resources resources;
  std::string message;
};

// Requests the node could fit, limits no cgroup can hold: Infeasible with the value named, and
// nothing written.
const AbsurdCase kAbsurdCases[] = {
    {"cpu limit 1e18",
     {"100m", "1e18", "100Mi", "100Mi"},
     "container \"app\": limits.cpu 1e18 is more than a cgroup can hold (at most "
     "92233720368547m)"},
    {"memory limit beyond int64",
     {"100m", "200m", "100Mi", "100E"},
     "container \"app\": limits.memory 100E is more than a cgroup can hold (at most "
     "4611686018427387903)"},
    {"memory limit 2^62 reads back as unlimited",
     {"100m", "200m", "100Mi", "4Ei"},
     "container \"app\": limits.memory 4Ei is more than a cgroup can hold (at most "
     "4611686018427387903)"},
};

TEST_F(ResizeManagerCriTest, AbsurdLimitsAreInfeasibleAndNothingIsWritten) {
  for (const AbsurdCase& c : kAbsurdCases) {
    SCOPED_TRACE(c.name);
    const Pod pod = make_pod("web", {container("app", {"100m", "200m", "100Mi", "100Mi"})});
    run(pod);
    cri_.calls.clear();
    events_.recorded.clear();
    manager_->sync_pod(resized(pod, "app", c.resources));
    const PodCondition* pending = condition(pod, kPodResizePending);
    ASSERT_NE(pending, nullptr);
    EXPECT_EQ(pending->reason, "Infeasible");
    EXPECT_EQ(pending->message, c.message);
    EXPECT_EQ(events_with("ResizeInfeasible"),
              std::vector<std::string>{"web Warning ResizeInfeasible: " + c.message});
    EXPECT_TRUE(cri_.calls.empty()) << cri_.calls.front();
    EXPECT_EQ(get(pod_file(pod, "memory", "memory.limit_in_bytes")), std::to_string(100 * kMi));
    manager_->remove_pod(pod.metadata.uid);
    cri_.containers.clear();
  }
  EXPECT_NE(registry_.serialize().find(
                "tailor_node_pod_infeasible_resizes_total{reason_detail=\"invalid_request\"} 3"),
            std::string::npos)
      << registry_.serialize();
}

TEST_F(ResizeManagerCriTest, NewPodWithAnAbsurdLimitIsRejectedNotRun) {
  manager_->sync_pod(make_pod("web", {container("app", {"100m", "1e18", "", ""})}));
  EXPECT_FALSE(manager_->allocation("uid-web"));
  EXPECT_EQ(status_.rejected.at("uid-web"),
            "UnexpectedAdmissionError: Pod was rejected: container \"app\": limits.cpu 1e18 is "
            "more than a cgroup can hold (at most 92233720368547m)");
}

// The manager talks to the fake runtime through the real CRI client and gRPC, with a short
// per-call deadline.
class ResizeManagerOverGrpcTest : public ResizeManagerCriTest {
 protected:
  void SetUp() override {
    ResizeManagerCriTest::SetUp();
    fs::create_directories(root_);
    server_ = std::make_unique<FakeCriServer>(cri_, root_ / "cri.sock");
    client_ = connect_runtime_service({server_->endpoint(), kDeadline, kDeadline});
    start_manager(*client_, &restarter_);
  }
  void TearDown() override {
    manager_.reset();
    server_.reset();
    ResizeManagerCriTest::TearDown();
  }
  static constexpr std::chrono::milliseconds kDeadline{300};
  std::unique_ptr<FakeCriServer> server_;
  std::unique_ptr<RuntimeService> client_;
};

// A runtime that never answers UpdateContainerResources for one pod's container: that resize
// ends in Error (the call's deadline), is retried, and completes once the runtime answers; the
// other pod's resize, behind it in the same worker, is not held up.
TEST_F(ResizeManagerOverGrpcTest, HungRuntimeCallEndsInErrorAndDoesNotBlockOtherPods) {
  const Pod stuck = make_pod("stuck", {container("app", {"100m", "200m", "100Mi", "100Mi"})});
  const Pod fine = make_pod("fine", {container("web", {"100m", "200m", "100Mi", "100Mi"})});
  run(stuck);
  run(fine);
  const std::string stuck_id = cri_.latest("app").status.id;
  server_->set_hang({stuck_id});

  ResizeManagerLoop loop(*manager_, std::chrono::hours(1));
  loop.start();
  const Pod stuck2 = resized(stuck, "app", {"300m", "400m", "100Mi", "100Mi"});
  const Pod fine2 = resized(fine, "web", {"300m", "400m", "100Mi", "100Mi"});
  loop.post([&](ResizeManager& m) { m.sync_pod(stuck2); });
  loop.post([&](ResizeManager& m) { m.sync_pod(fine2); });
  ASSERT_TRUE(loop.run([](ResizeManager&) {}, std::chrono::seconds(30)))
      << "the worker is stuck behind the hung runtime call";
  loop.stop();

  EXPECT_EQ(server_->hung_calls(), 1);
  const PodCondition* in_progress = condition(stuck, kPodResizeInProgress);
  ASSERT_NE(in_progress, nullptr);
  EXPECT_EQ(in_progress->reason, "Error");
  EXPECT_EQ(in_progress->message, "CRI UpdateContainerResources (container " + stuck_id +
                                      "): runtime did not answer within 300 ms at " +
                                      server_->endpoint());
  EXPECT_EQ(events_with("ResizeError").size(), 1u);
  EXPECT_EQ(condition(fine, kPodResizeInProgress), nullptr);
  EXPECT_FALSE(manager_->allocation(fine.metadata.uid)->resize_in_progress);
  EXPECT_EQ(cri_.latest("web").status.resources->cpu_quota, 40000);

  retry();  // still hung: tried again, still an error
  EXPECT_EQ(server_->hung_calls(), 2);
  EXPECT_EQ(condition(stuck, kPodResizeInProgress)->reason, "Error");

  server_->set_hang({});
  retry();
  EXPECT_EQ(condition(stuck, kPodResizeInProgress), nullptr);
  EXPECT_EQ(cri_.latest("app").status.resources->cpu_quota, 40000);
}

// A socket that accepts connections and never speaks gRPC: each call ends at its deadline.
TEST(ResizeManagerSilentRuntime, SocketThatNeverAnswersGivesATimeoutError) {
  const fs::path dir = fs::temp_directory_path() / ("tailor-silent-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path socket_path = dir / "cri.sock";
  const int listener = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(listener, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, socket_path.c_str(), sizeof address.sun_path - 1);
  ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  ASSERT_EQ(::listen(listener, 16), 0);  // the kernel accepts; nobody reads or answers

  auto cri = connect_runtime_service({"unix://" + socket_path.string(), 200ms, 200ms});
  CriPodResources runtime(*cri, {{dir, CgroupVersion::V1}, CgroupDriver::Cgroupfs, nullptr});
  FakeStatus status;
  FakeEvents events;
  FakeCheckpoint checkpoint;
  metrics::Registry registry;
  NodeAgentMetrics metrics{registry};
  ResizeManagerOptions options;
  options.node_allocatable = {{"cpu", Quantity::parse("4")}, {"memory", Quantity::parse("4Gi")}};
  ResizeManager manager(options, runtime, status, events, checkpoint, metrics);
  const Pod pod = make_pod("web", {container("app", {"100m", "200m", "100Mi", "100Mi"})});
  manager.sync_pod(pod);  // admitted; reading its resources times out (logged)
  manager.sync_pod(resized(pod, "app", {"300m", "400m", "100Mi", "100Mi"}));
  const PodCondition* in_progress = status.condition(pod.metadata.uid, kPodResizeInProgress);
  ASSERT_NE(in_progress, nullptr);
  EXPECT_EQ(in_progress->reason, "Error");
  EXPECT_EQ(
      in_progress->message,
      "CRI ListContainers: runtime did not answer within 200 ms at unix://" + socket_path.string());
  ::close(listener);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace tailor::kube::node::testing
