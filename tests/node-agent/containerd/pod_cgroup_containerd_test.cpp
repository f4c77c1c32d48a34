// The pod-level cgroup reader/writer on the real cgroup v1 tree, under a sandbox that a real
// containerd runs with cgroup parent /kubepods/pod<uid>.
#include <thread>

#include "node-agent/cri/container_update.h"
#include "node-agent/cri/pod_cgroup.h"
#include "tests/node-agent/containerd/runtime_fixture.h"
#include "tests/node-agent/containerd/test_pod.h"

namespace tailor::node::testing {
namespace {

constexpr std::int64_t kMi = 1024 * 1024;

TEST_F(RealContainerd, PodCgroupValuesAreWrittenAndReadBackOnTheRealTree) {
  TestPod pod(*cri_, "pod-cgroup");
  const std::vector<cri::ResourceAmounts> containers = {{250, 500, 64 * kMi, 128 * kMi}};
  const std::string id = pod.start_sleeper(
      "app", cri::to_linux_resources(cri::container_cgroup_values(containers[0])));
  const cri::CgroupFiles cgroup({"/sys/fs/cgroup", cri::CgroupVersion::V1}, pod.cgroup_parent());

  const cri::CgroupValues wanted = cri::pod_cgroup_values(containers, {}, cri::qos_of(containers));
  cgroup.write(wanted);
  EXPECT_EQ(cgroup.read(), wanted);
  EXPECT_EQ(read_file(pod.cgroup("cpu", "") / "cpu.cfs_quota_us"), "50000");
  // Σ container limits ≤ pod limit.
  EXPECT_LE(pod.cgroup_files(id).memory_limit_in_bytes, *cgroup.read().memory_limit_bytes);

  // Raise the pod limit first, then the container's: the order a net increase needs.
  const std::vector<cri::ResourceAmounts> bigger = {{500, 1000, 64 * kMi, 256 * kMi}};
  cgroup.write(cri::pod_cgroup_values(bigger, {}, cri::qos_of(bigger)));
  cri_->update_container_resources(
      id, cri::to_linux_resources(cri::container_cgroup_values(bigger[0])));
  EXPECT_EQ(pod.cgroup_files(id).memory_limit_in_bytes, 256 * kMi);
  EXPECT_EQ(cgroup.read().cpu_quota_us, 100000);
}

TEST_F(RealContainerd, PodMemoryLimitIsNeverSetBelowUsage) {
  TestPod pod(*cri_, "below-usage");
  const cri::LinuxResources resources{100000, 0, 102, 128 * kMi, {}};
  pod.start_container("filler", resources,
                      {"sh", "-c", "head -c 41943040 /dev/zero > /tmp/fill && sleep 3600"});
  const cri::CgroupFiles cgroup({"/sys/fs/cgroup", cri::CgroupVersion::V1}, pod.cgroup_parent());
  cgroup.write({std::nullopt, std::nullopt, std::nullopt, 256 * kMi});

  // Wait (bounded) until the 40 MiB file is charged to the pod.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (cgroup.memory_usage_bytes() < 40 * kMi) {
    ASSERT_LT(std::chrono::steady_clock::now(), deadline)
        << "usage stayed at " << cgroup.memory_usage_bytes();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  try {
    cgroup.write({std::nullopt, std::nullopt, std::nullopt, 32 * kMi});
    FAIL() << "pod memory limit set below usage";
  } catch (const cri::MemoryBelowUsageError& e) {
    EXPECT_EQ(e.limit_bytes, 32 * kMi);
    EXPECT_GE(e.usage_bytes, 40 * kMi);
    EXPECT_NE(std::string(e.what()).find("memory limit (33554432) below current usage ("),
              std::string::npos);
  }
  EXPECT_EQ(cgroup.read().memory_limit_bytes, 256 * kMi);
  cgroup.write({std::nullopt, std::nullopt, std::nullopt, 192 * kMi});  // above usage: fine
  EXPECT_EQ(cgroup.read().memory_limit_bytes, 192 * kMi);
}

}  // namespace
}  // namespace tailor::node::testing

namespace tailor::node::testing {
namespace {

TEST_F(RealContainerd, ContainerMemoryLimitIsNeverSetBelowUsage) {
  TestPod pod(*cri_, "container-below-usage");
  const std::string id =
      pod.start_container("filler", {100000, 0, 102, 128 * kMi, {}},
                          {"sh", "-c", "head -c 41943040 /dev/zero > /tmp/fill && sleep 3600"});
  const cri::CgroupFiles cgroup(
      {"/sys/fs/cgroup", cri::CgroupVersion::V1},
      cri::container_cgroup_path(pod.cgroup_parent(), id, cri::CgroupDriver::Cgroupfs));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (cgroup.memory_usage_bytes() < 40 * kMi) {
    ASSERT_LT(std::chrono::steady_clock::now(), deadline)
        << "usage stayed at " << cgroup.memory_usage_bytes();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  try {
    cri::update_container_resources_checked(*cri_, id, {100000, 0, 102, 32 * kMi, {}}, cgroup);
    FAIL() << "container memory limit set below usage";
  } catch (const cri::MemoryBelowUsageError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "container filler: memory limit (33554432) below current usage ("),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(cri_->container_status(id).resources->memory_limit_in_bytes, 128 * kMi);
  EXPECT_EQ(pod.cgroup_files(id).memory_limit_in_bytes, 128 * kMi);

  cri::update_container_resources_checked(*cri_, id, {100000, 0, 102, 96 * kMi, {}}, cgroup);
  EXPECT_EQ(cri_->container_status(id).resources->memory_limit_in_bytes, 96 * kMi);
  EXPECT_EQ(pod.cgroup_files(id).memory_limit_in_bytes, 96 * kMi);
}

}  // namespace
}  // namespace tailor::node::testing
