// Embedded mode on a real containerd: pods bound to the node run busybox through the CRI, become
// Running/Ready, stop on deletion; restart counts and OOMKilled are reported; the usage sampler
// measures a CPU burner held by its CFS quota.
#include <gtest/gtest.h>

#include "node-agent/cri/pod_cgroup.h"
#include "node-agent/usage/usage_sampler.h"
#include "tests/node-agent/containerd/embedded_node.h"

namespace tailor::node::testing {
namespace {
namespace bj = boost::json;

bool has_condition(const bj::value& pod, const std::string& type, const std::string& status) {
  if (!pod.is_object()) return false;
  const auto* conditions = pod.at("status").as_object().if_contains("conditions");
  if (!conditions) return false;
  for (const auto& c : conditions->as_array()) {
    if (c.at("type") == type.c_str() && c.at("status") == status.c_str()) return true;
  }
  return false;
}

std::string container_id(const bj::value& pod) {
  const std::string id = field(*first_container_status(pod), {"containerID"});
  const std::string prefix = "containerd://";
  return id.rfind(prefix, 0) == 0 ? id.substr(prefix.size()) : "";
}

using PodRuntimeOnContainerd = EmbeddedNode;

TEST_F(PodRuntimeOnContainerd, PodRunsBecomesReadyAndStopsOnDeletion) {
  const bj::value node = bj::parse(client_->get({kube::resources::kNodes, "", kNodeName}));
  EXPECT_EQ(field(node, {"status", "allocatable", "cpu"}), "2");

  create_pod("sleeper", R"([{"name":"app","image":"busybox","command":["sleep","3600"],
      "resources":{"requests":{"cpu":"100m","memory":"32Mi"},"limits":{"cpu":"200m","memory":"64Mi"}}}])");
  const bj::value pod =
      wait_for_pod("sleeper", [](const bj::value& p) { return has_condition(p, "Ready", "True"); });
  EXPECT_EQ(field(pod, {"status", "phase"}), "Running");
  const auto& status = *first_container_status(pod);
  EXPECT_EQ(field(status, {"restartCount"}), "0");
  EXPECT_EQ(field(status, {"image"}), "docker.io/library/busybox:latest");
  EXPECT_NE(field(status, {"state", "running", "startedAt"}), "");
  EXPECT_EQ(field(pod, {"status", "hostIP"}), "127.0.0.1");
  const std::string id = container_id(pod);
  ASSERT_FALSE(id.empty());
  const cri::ContainerStatus cri = cri_->container_status(id);
  EXPECT_EQ(cri.state, cri::ContainerState::Running);
  ASSERT_TRUE(cri.resources);
  EXPECT_EQ(cri.resources->cpu_quota, 20000);
  EXPECT_EQ(cri.resources->memory_limit_in_bytes, 64 << 20);
  // The pod cgroup (Burstable) holds the pod-level values; the container sits beneath it.
  const std::string uid = field(pod, {"metadata", "uid"});
  const std::filesystem::path pod_cgroup = "/sys/fs/cgroup/memory/kubepods/burstable/pod" + uid;
  EXPECT_EQ(read_file(pod_cgroup / "memory.limit_in_bytes"), std::to_string(64 << 20));
  EXPECT_EQ(read_file(pod_cgroup / id / "memory.limit_in_bytes"), std::to_string(64 << 20));

  client_->remove(pod_ref("sleeper"));  // graceful: the agent stops it, then deletes with grace 0
  wait_for_pod("sleeper", [](const bj::value& p) { return p.is_null(); });
  EXPECT_THROW(cri_->container_status(id), cri::CriError);
  EXPECT_FALSE(std::filesystem::exists(pod_cgroup));
}

TEST_F(PodRuntimeOnContainerd, CrashingContainerIsRestartedAndCounted) {
  create_pod("crasher",
             R"([{"name":"app","image":"busybox","command":["sh","-c","sleep 0.2; exit 3"]}])");
  const bj::value pod = wait_for_pod("crasher", [](const bj::value& p) {
    const auto* s = first_container_status(p);
    return s && std::stoi(field(*s, {"restartCount"})) >= 2;
  });
  const auto& status = *first_container_status(pod);
  EXPECT_EQ(field(status, {"lastState", "terminated", "exitCode"}), "3");
  EXPECT_EQ(field(status, {"lastState", "terminated", "reason"}), "Error");
  EXPECT_EQ(field(pod, {"status", "phase"}), "Running");
  delete_pod("crasher");
}

TEST_F(PodRuntimeOnContainerd, MemoryBurnerOverItsLimitIsOOMKilled) {
  // busybox dd allocates (and fills) a 96 MiB buffer: over the 32 MiB limit.
  create_pod("burner", R"([{"name":"app","image":"busybox",
      "command":["dd","if=/dev/zero","of=/dev/null","bs=96M","count=4"],
      "resources":{"limits":{"cpu":"500m","memory":"32Mi"}}}])",
             "Never");
  const bj::value pod = wait_for_pod("burner", [](const bj::value& p) {
    const auto* s = first_container_status(p);
    return s && !field(*s, {"state", "terminated", "reason"}).empty();
  });
  const auto& status = *first_container_status(pod);
  EXPECT_EQ(field(status, {"state", "terminated", "reason"}), "OOMKilled");
  EXPECT_EQ(field(status, {"state", "terminated", "exitCode"}), "137");
  EXPECT_EQ(field(status, {"restartCount"}), "0");
  EXPECT_EQ(field(pod, {"status", "phase"}), "Failed");
  delete_pod("burner");
}

TEST_F(PodRuntimeOnContainerd, MissingImageIsReportedAsAPullFailure) {
  create_pod("ghost", R"([{"name":"app","image":"example.com/not/here:1"}])");
  const bj::value pod = wait_for_pod("ghost", [](const bj::value& p) {
    const auto* s = first_container_status(p);
    return s && field(*s, {"state", "waiting", "reason"}) == "ImagePullBackOff";
  });
  EXPECT_EQ(field(pod, {"status", "phase"}), "Pending");
  delete_pod("ghost");
}

TEST_F(PodRuntimeOnContainerd, SamplerMeasuresACpuBurnerAtItsQuota) {
  create_pod("spinner",
             R"([{"name":"app","image":"busybox","command":["sh","-c","while :; do :; done"],
      "resources":{"limits":{"cpu":"300m","memory":"32Mi"}}}])");
  const bj::value pod =
      wait_for_pod("spinner", [](const bj::value& p) { return has_condition(p, "Ready", "True"); });
  const std::string uid = field(pod, {"metadata", "uid"});
  kube::metrics::Registry registry;
  std::vector<usage::UsageWindow> windows;
  usage::UsageSampler sampler(
      [&] {
        std::vector<usage::SampledContainer> out;
        for (const auto& running : runtime_->running_pods()) {
          for (const auto& c : running.containers) {
            out.push_back({{running.ns, running.name, running.uid, c.name, c.id},
                           cri::container_cgroup_path(running.cgroup_path, c.id,
                                                      cri::CgroupDriver::Cgroupfs)});
          }
        }
        return out;
      },
      [&](std::vector<usage::UsageWindow> w) { windows.insert(windows.end(), w.begin(), w.end()); },
      {.interval = std::chrono::seconds(1),
       .window = std::chrono::seconds(1),
       .registry = &registry});
  const auto now_ms = [] {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  };
  // The truth to compare with: the container's own cpuacct counter, read at each sample. How
  // much CPU the burner gets depends on the machine's load; what the sampler reports must not.
  const auto usage_ns = [&] {
    for (const auto& running : runtime_->running_pods()) {
      if (running.name != "spinner" || running.containers.empty()) continue;
      const std::string path = cri::container_cgroup_path(
          running.cgroup_path, running.containers.front().id, cri::CgroupDriver::Cgroupfs);
      return std::stoll(read_file(std::filesystem::path("/sys/fs/cgroup/cpuacct") / path.substr(1) /
                                  "cpuacct.usage"));
    }
    throw std::runtime_error("spinner is not running");
  };
  std::vector<long long> usage{usage_ns()};
  std::vector<std::int64_t> at{now_ms()};
  sampler.sample(at.back());
  for (int i = 0; i < 3; ++i) {
    std::this_thread::sleep_for(std::chrono::seconds(1));  // the rate needs time to pass
    usage.push_back(usage_ns());
    at.push_back(now_ms());
    sampler.sample(at.back());
  }
  ASSERT_EQ(windows.size(), 3u);
  for (std::size_t i = 0; i < windows.size(); ++i) {
    const usage::UsageWindow& w = windows[i];
    EXPECT_EQ(w.container.pod, "spinner");
    const double truth =
        static_cast<double>(usage[i + 1] - usage[i]) / 1e6 / static_cast<double>(at[i + 1] - at[i]);
    EXPECT_NEAR(w.cpu_cores_mean, truth, 0.02 + 0.05 * truth) << "window " << i;
    EXPECT_GT(w.cpu_cores_mean, 0.0);
    // The CFS quota holds it at 0.3 cores.
    EXPECT_LT(w.cpu_cores_mean, 0.36);
    EXPECT_GT(w.working_set_last_bytes, 0);
    EXPECT_GE(w.peak_bytes, w.working_set_last_bytes);
  }
  EXPECT_NE(registry.serialize().find("tailor_node_container_cpu_usage_cores{container=\"app\""),
            std::string::npos);
  delete_pod("spinner");
}

}  // namespace
}  // namespace tailor::node::testing
