// Pod actuation against a fake runtime and a fake cgroup tree: it stops at the first failing
// step, treats UpdatePodSandboxResources as best effort, and refuses memory below usage.
#include "node-agent/cri/pod_actuation.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <map>

namespace tailor::node::cri {
namespace {

constexpr std::int64_t kMi = 1024 * 1024;

// Just enough of a runtime for resource updates; unknown calls are programming errors here.
class FakeRuntime final : public RuntimeService {
 public:
  RuntimeVersion version() override { return {"v1", "fake", "1", "v1"}; }
  std::string run_pod_sandbox(const PodSandboxSpec&) override { throw unused(); }
  void stop_pod_sandbox(const std::string&) override { throw unused(); }
  void remove_pod_sandbox(const std::string&) override { throw unused(); }
  SandboxStatus pod_sandbox_status(const std::string&) override { throw unused(); }
  std::int32_t exec_sync(const std::string&, const std::vector<std::string>&,
                         std::chrono::seconds) override {
    throw unused();
  }
  std::vector<SandboxStatus> list_pod_sandboxes(
      const std::map<std::string, std::string>&) override {
    throw unused();
  }
  std::string create_container(const std::string&, const ContainerSpec&,
                               const PodSandboxSpec&) override {
    throw unused();
  }
  void start_container(const std::string&) override { throw unused(); }
  void stop_container(const std::string&, std::int64_t) override { throw unused(); }
  void remove_container(const std::string&) override { throw unused(); }
  std::vector<ContainerSummary> list_containers(const ContainerFilter&) override { return {}; }
  ContainerStatus container_status(const std::string& id) override {
    ContainerStatus status;
    status.id = id;
    status.name = id;
    status.resources = applied.at(id);
    return status;
  }
  void update_container_resources(const std::string& id, const LinuxResources& r) override {
    calls.push_back(id);
    if (id == failing) throw CriError(CriErrorKind::Other, "UpdateContainerResources", "boom");
    applied[id] = r;
  }
  SandboxUpdateOutcome update_pod_sandbox_resources(const std::string&,
                                                    const LinuxResources&) override {
    ++sandbox_calls;
    if (sandbox_times_out) {
      throw CriError(CriErrorKind::Timeout, "UpdatePodSandboxResources", "timed out");
    }
    return SandboxUpdateOutcome::NotSupported;
  }

  std::map<std::string, LinuxResources> applied;
  std::vector<std::string> calls;
  std::string failing;
  bool sandbox_times_out = false;
  int sandbox_calls = 0;

 private:
  static std::logic_error unused() { return std::logic_error("not used by pod actuation"); }
};

class ActuatorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::temp_directory_path() /
            ("tailor-actuation-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    for (const char* id : {"", "a", "b"}) {
      put(std::string("cpu/pod/") + id, {"cpu.shares", "cpu.cfs_period_us", "cpu.cfs_quota_us"});
      put(std::string("memory/pod/") + id, {"memory.limit_in_bytes", "memory.usage_in_bytes"});
    }
    pod_cgroup_ = std::make_unique<CgroupFiles>(CgroupLayout{root_, CgroupVersion::V1}, "/pod");
    from_ = {{100, 200, 0, 100 * kMi}, {100, 200, 0, 100 * kMi}};
    pod_cgroup_->write(pod_cgroup_values(from_, {}, qos_of(from_)));
    for (std::size_t i = 0; i < 2; ++i) {
      const std::string id = i == 0 ? "a" : "b";
      target_.container_ids.push_back(id);
      target_.container_cgroups.emplace_back(CgroupLayout{root_, CgroupVersion::V1}, "/pod/" + id);
      runtime_.applied[id] = to_linux_resources(container_cgroup_values(from_[i]));
    }
    target_.cri = &runtime_;
    target_.pod_cgroup = pod_cgroup_.get();
    target_.sandbox_id = "sandbox";
  }
  void TearDown() override { std::filesystem::remove_all(root_); }

  void put(const std::string& dir, std::initializer_list<const char*> files) {
    std::filesystem::create_directories(root_ / dir);
    for (const char* f : files) std::ofstream(root_ / dir / f) << "0\n";
  }
  void set_usage(const std::string& id, std::int64_t bytes) {
    std::ofstream(root_ / "memory/pod" / id / "memory.usage_in_bytes") << bytes << "\n";
  }
  PodResize resize_to(const std::vector<ResourceAmounts>& to) {
    PodResize resize{
        pod_cgroup_values(from_, {}, qos_of(from_)), pod_cgroup_values(to, {}, qos_of(to)), {}};
    for (std::size_t i = 0; i < to.size(); ++i) {
      resize.containers.push_back({target_.container_ids[i], container_cgroup_values(from_[i]),
                                   container_cgroup_values(to[i])});
    }
    return resize;
  }

  std::filesystem::path root_;
  FakeRuntime runtime_;
  std::unique_ptr<CgroupFiles> pod_cgroup_;
  std::vector<ResourceAmounts> from_;
  PodActuationTarget target_;
};

TEST_F(ActuatorTest, AppliesEveryStepAndAsksTheSandboxOnlyUntilUnsupported) {
  const std::vector<ResourceAmounts> to = {{200, 400, 0, 150 * kMi}, {100, 200, 0, 120 * kMi}};
  const ActuationResult result = actuate_pod_resize(resize_to(to), target_);
  ASSERT_FALSE(result.error.has_value()) << *result.error;
  EXPECT_FALSE(result.sandbox_update_supported);
  EXPECT_EQ(runtime_.sandbox_calls, 1);  // UNIMPLEMENTED once: never asked again
  EXPECT_EQ(pod_cgroup_->read().memory_limit_bytes, 270 * kMi);
  EXPECT_EQ(runtime_.applied["a"], to_linux_resources(container_cgroup_values(to[0])));
  EXPECT_EQ(runtime_.applied["b"], to_linux_resources(container_cgroup_values(to[1])));
}

TEST_F(ActuatorTest, StopsAtTheFirstFailingContainer) {
  runtime_.failing = "a";
  const std::vector<ResourceAmounts> to = {{200, 400, 0, 150 * kMi}, {100, 200, 0, 120 * kMi}};
  const ActuationResult result = actuate_pod_resize(resize_to(to), target_);
  ASSERT_TRUE(result.error.has_value());
  EXPECT_EQ(*result.error, "boom");
  EXPECT_EQ(result.steps_applied, 1u);  // the pod memory limit went up; then container a failed
  EXPECT_EQ(runtime_.calls, std::vector<std::string>{"a"});
  EXPECT_EQ(runtime_.applied["b"], to_linux_resources(container_cgroup_values(from_[1])));
}

TEST_F(ActuatorTest, SandboxUpdateFailureIsBestEffort) {
  runtime_.sandbox_times_out = true;
  const std::vector<ResourceAmounts> to = {{200, 400, 0, 150 * kMi}, {100, 200, 0, 100 * kMi}};
  const ActuationResult result = actuate_pod_resize(resize_to(to), target_);
  EXPECT_FALSE(result.error.has_value());
  EXPECT_EQ(result.sandbox_update_error, "timed out");
  EXPECT_EQ(runtime_.applied["a"], to_linux_resources(container_cgroup_values(to[0])));
}

TEST_F(ActuatorTest, ContainerMemoryBelowUsageStopsTheResize) {
  set_usage("a", 90 * kMi);
  const std::vector<ResourceAmounts> to = {{100, 200, 0, 80 * kMi}, {100, 200, 0, 100 * kMi}};
  const ActuationResult result = actuate_pod_resize(resize_to(to), target_);
  ASSERT_TRUE(result.error.has_value());
  EXPECT_TRUE(result.memory_below_usage);
  EXPECT_EQ(*result.error, "container a: memory limit (83886080) below current usage (94371840)");
  EXPECT_TRUE(runtime_.calls.empty());
  EXPECT_EQ(pod_cgroup_->read().memory_limit_bytes, 200 * kMi);  // pod limit lowered only last
}

TEST_F(ActuatorTest, MismatchedTargetIsRejected) {
  target_.container_ids.pop_back();
  EXPECT_THROW(actuate_pod_resize(resize_to(from_), target_), std::invalid_argument);
}

}  // namespace
}  // namespace tailor::node::cri
