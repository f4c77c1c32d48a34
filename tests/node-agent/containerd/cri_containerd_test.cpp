// The CRI client against a real containerd + runc: pod sandboxes under /kubepods/pod<uid>,
// busybox containers, resource updates read back through ContainerStatus and the cgroup files.
#include <algorithm>
#include <iostream>

#include "node-agent/cri/cgroup_values.h"
#include "tests/node-agent/containerd/runtime_fixture.h"
#include "tests/node-agent/containerd/test_pod.h"

namespace tailor::node::testing {
namespace {

constexpr std::int64_t kMi = 1024 * 1024;

cri::LinuxResources resources_for(cri::ResourceAmounts amounts) {
  return cri::to_linux_resources(cri::container_cgroup_values(amounts));
}

TEST_F(RealContainerd, VersionIsCriV1) {
  const cri::RuntimeVersion version = cri_->version();
  EXPECT_EQ(version.runtime_name, "containerd");
  EXPECT_EQ(version.runtime_api_version, "v1");
  std::cout << "runtime: " << version.runtime_name << " " << version.runtime_version << "\n";
}

TEST_F(RealContainerd, ContainerStartsWithItsResourcesInStatusAndCgroups) {
  TestPod pod(*cri_, "start");
  const cri::LinuxResources initial = resources_for({250, 500, 64 * kMi, 128 * kMi});
  const std::string id = pod.start_sleeper("app", initial);

  const cri::ContainerStatus status = cri_->container_status(id);
  EXPECT_EQ(status.state, cri::ContainerState::Running);
  EXPECT_EQ(status.name, "app");
  ASSERT_TRUE(status.resources.has_value()) << "containerd did not report resources.linux";
  EXPECT_EQ(*status.resources, (cri::LinuxResources{100000, 50000, 256, 128 * kMi, {}}));
  EXPECT_EQ(pod.cgroup_files(id), (cri::LinuxResources{100000, 50000, 256, 128 * kMi, {}}));

  const auto listed = cri_->list_containers({.pod_sandbox_id = pod.sandbox_id()});
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].id, id);
  EXPECT_EQ(listed[0].state, cri::ContainerState::Running);
}

TEST_F(RealContainerd, UpdateContainerResourcesChangesStatusAndCgroupFiles) {
  TestPod pod(*cri_, "update");
  const std::string id = pod.start_sleeper("app", resources_for({250, 500, 64 * kMi, 128 * kMi}));

  struct Step {
    const char* name;
    cri::ResourceAmounts amounts;
    cri::LinuxResources expected;
  };
  const std::vector<Step> steps = {
      {"increase both", {500, 1000, 128 * kMi, 256 * kMi}, {100000, 100000, 512, 256 * kMi, {}}},
      {"decrease both", {100, 200, 32 * kMi, 64 * kMi}, {100000, 20000, 102, 64 * kMi, {}}},
      {"cpu only", {1500, 1500, 32 * kMi, 64 * kMi}, {100000, 150000, 1536, 64 * kMi, {}}},
      {"minimum quota", {1, 5, 32 * kMi, 64 * kMi}, {100000, 1000, 2, 64 * kMi, {}}},
  };
  for (const auto& step : steps) {
    cri_->update_container_resources(id, resources_for(step.amounts));
    const cri::ContainerStatus status = cri_->container_status(id);
    ASSERT_TRUE(status.resources.has_value()) << step.name;
    EXPECT_EQ(*status.resources, step.expected) << step.name;
    EXPECT_EQ(pod.cgroup_files(id), step.expected) << step.name;
    EXPECT_EQ(status.state, cri::ContainerState::Running) << step.name;
  }
}

TEST_F(RealContainerd, UpdateLatencyIsMeasured) {
  TestPod pod(*cri_, "latency");
  const std::string id = pod.start_sleeper("app", resources_for({250, 500, 64 * kMi, 128 * kMi}));
  std::vector<double> millis;
  for (int i = 0; i < 20; ++i) {
    const std::int64_t limit = i % 2 ? 500 : 700;
    const auto start = std::chrono::steady_clock::now();
    cri_->update_container_resources(id, resources_for({250, limit, 64 * kMi, 128 * kMi}));
    millis.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
            .count());
    EXPECT_EQ(pod.cgroup_files(id).cpu_quota, limit * 100);
  }
  std::sort(millis.begin(), millis.end());
  std::cout << "UpdateContainerResources over " << millis.size() << " calls: p50 "
            << millis[millis.size() / 2] << " ms, max " << millis.back() << " ms\n";
}

TEST_F(RealContainerd, UpdatingARemovedContainerIsAClearError) {
  TestPod pod(*cri_, "removed");
  const std::string id = pod.start_sleeper("app", resources_for({100, 200, 0, 64 * kMi}));
  cri_->stop_container(id, 0);
  cri_->remove_container(id);
  try {
    cri_->update_container_resources(id, resources_for({200, 400, 0, 64 * kMi}));
    FAIL() << "update of a removed container succeeded";
  } catch (const cri::CriError& e) {
    EXPECT_EQ(e.kind(), cri::CriErrorKind::NotFound) << e.what();
    EXPECT_NE(std::string(e.what()).find("CRI UpdateContainerResources (container " + id + ")"),
              std::string::npos)
        << e.what();
    std::cout << "containerd says: " << e.what() << "\n";
  }
  EXPECT_THROW(cri_->container_status(id), cri::CriError);
}

TEST_F(RealContainerd, PodSandboxResourceUpdateIsNotSupportedOnContainerd16) {
  TestPod pod(*cri_, "sandbox-update");
  const auto outcome = cri_->update_pod_sandbox_resources(pod.sandbox_id(),
                                                          resources_for({500, 1000, 0, 256 * kMi}));
  const cri::RuntimeVersion version = cri_->version();
  if (version.runtime_version.rfind("1.6", 0) == 0) {
    EXPECT_EQ(outcome, cri::SandboxUpdateOutcome::NotSupported);
  }
}

}  // namespace
}  // namespace tailor::node::testing
