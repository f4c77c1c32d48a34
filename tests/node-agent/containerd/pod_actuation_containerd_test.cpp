// Multi-container resizes applied to a real containerd: the cgroup files after every step keep
// Σ container limits ≤ pod limit, and the end state is what was allocated.
#include "node-agent/cri/pod_actuation.h"
#include "tests/node-agent/containerd/runtime_fixture.h"
#include "tests/node-agent/containerd/test_pod.h"

namespace tailor::node::testing {
namespace {

constexpr std::int64_t kMi = 1024 * 1024;
using A = cri::ResourceAmounts;

class ThreeContainerPod {
 public:
  ThreeContainerPod(cri::RuntimeService& cri, const std::vector<A>& amounts)
      : pod_(cri, "three"),
        cgroup_({"/sys/fs/cgroup", cri::CgroupVersion::V1}, pod_.cgroup_parent()),
        amounts_(amounts) {
    // The agent sizes the pod cgroup before the containers start, as the kubelet does.
    cgroup_.write(cri::pod_cgroup_values(amounts, {}, cri::qos_of(amounts)));
    for (std::size_t i = 0; i < amounts.size(); ++i) {
      const std::string id =
          pod_.start_sleeper("c" + std::to_string(i),
                             cri::to_linux_resources(cri::container_cgroup_values(amounts[i])));
      target_.container_ids.push_back(id);
      target_.container_cgroups.emplace_back(
          cri::CgroupLayout{"/sys/fs/cgroup", cri::CgroupVersion::V1},
          cri::container_cgroup_path(pod_.cgroup_parent(), id, cri::CgroupDriver::Cgroupfs));
    }
    target_.cri = &cri;
    target_.pod_cgroup = &cgroup_;
    target_.sandbox_id = pod_.sandbox_id();
  }

  // Resizes to `to`, checking the real files after every step.
  cri::ActuationResult resize_to(const std::vector<A>& to) {
    cri::PodResize resize;
    resize.pod_actuated = cri::pod_cgroup_values(amounts_, {}, cri::qos_of(amounts_));
    resize.pod_desired = cri::pod_cgroup_values(to, {}, cri::qos_of(to));
    for (std::size_t i = 0; i < to.size(); ++i) {
      resize.containers.push_back({"c" + std::to_string(i),
                                   cri::container_cgroup_values(amounts_[i]),
                                   cri::container_cgroup_values(to[i])});
    }
    std::size_t step_number = 0;
    const auto result = cri::actuate_pod_resize(resize, target_, [&](const cri::ActuationStep&) {
      expect_invariant("after step " + std::to_string(step_number++));
    });
    if (!result.error) amounts_ = to;
    return result;
  }

  void expect_invariant(const std::string& where) const {
    const cri::CgroupValues pod = cgroup_.read();
    std::int64_t memory = 0, quota = 0;
    for (const auto& id : target_.container_ids) {
      const cri::LinuxResources files = pod_.cgroup_files(id);
      memory += files.memory_limit_in_bytes;
      quota += files.cpu_quota;
    }
    EXPECT_LE(memory, *pod.memory_limit_bytes) << where;
    EXPECT_LE(quota, *pod.cpu_quota_us) << where;
  }

  void expect_files(const std::vector<A>& amounts) const {
    for (std::size_t i = 0; i < amounts.size(); ++i) {
      EXPECT_EQ(pod_.cgroup_files(target_.container_ids[i]),
                cri::to_linux_resources(cri::container_cgroup_values(amounts[i])))
          << "container " << i;
    }
    EXPECT_EQ(cgroup_.read(), cri::pod_cgroup_values(amounts, {}, cri::qos_of(amounts)));
  }

 private:
  TestPod pod_;
  cri::CgroupFiles cgroup_;
  std::vector<A> amounts_;
  cri::PodActuationTarget target_;
};

TEST_F(RealContainerd, ThreeContainerNetIncreaseThenNetDecrease) {
  const std::vector<A> start = {{100, 200, 32 * kMi, 64 * kMi},
                                {200, 400, 32 * kMi, 128 * kMi},
                                {300, 600, 32 * kMi, 192 * kMi}};
  ThreeContainerPod pod(*cri_, start);
  pod.expect_invariant("start");

  const std::vector<A> increased = {{150, 300, 32 * kMi, 96 * kMi},
                                    {100, 200, 32 * kMi, 64 * kMi},
                                    {400, 900, 32 * kMi, 320 * kMi}};
  const cri::ActuationResult up = pod.resize_to(increased);
  ASSERT_FALSE(up.error.has_value()) << *up.error;
  EXPECT_FALSE(up.sandbox_update_supported);  // containerd 1.6: UNIMPLEMENTED, not an error
  EXPECT_FALSE(up.sandbox_update_error.has_value());
  pod.expect_files(increased);

  const std::vector<A> decreased = {{100, 100, 32 * kMi, 48 * kMi},
                                    {100, 200, 32 * kMi, 96 * kMi},
                                    {200, 300, 32 * kMi, 160 * kMi}};
  const cri::ActuationResult down = pod.resize_to(decreased);
  ASSERT_FALSE(down.error.has_value()) << *down.error;
  pod.expect_files(decreased);
}

TEST_F(RealContainerd, ThreeContainerNoNetChange) {
  const std::vector<A> start = {{100, 200, 32 * kMi, 64 * kMi},
                                {200, 400, 32 * kMi, 128 * kMi},
                                {300, 600, 32 * kMi, 192 * kMi}};
  ThreeContainerPod pod(*cri_, start);
  const std::vector<A> moved = {{200, 300, 32 * kMi, 128 * kMi},
                                {100, 300, 32 * kMi, 64 * kMi},
                                {300, 600, 32 * kMi, 192 * kMi}};
  const cri::ActuationResult result = pod.resize_to(moved);
  ASSERT_FALSE(result.error.has_value()) << *result.error;
  EXPECT_EQ(result.steps_applied, 4u);  // two containers, each memory then cpu; pod untouched
  pod.expect_files(moved);
}

}  // namespace
}  // namespace tailor::node::testing
