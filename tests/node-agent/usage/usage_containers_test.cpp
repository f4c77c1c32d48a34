// Which containers the agent samples: running ones with a containerID, under the pod cgroup of
// the pod's QoS class, named as runc names them for each cgroup driver.
#include "node-agent/usage/usage_containers.h"

#include <gtest/gtest.h>

namespace tailor::node::usage {
namespace {

kube::ContainerStatus running(const std::string& name, const std::string& id) {
  kube::ContainerStatus s;
  s.name = name;
  s.container_id = id;
  s.state.running = kube::ContainerStateRunning{};
  return s;
}

kube::Pod burstable_pod() {
  kube::Pod pod;
  pod.metadata.namespace_ = "shop";
  pod.metadata.name = "web-1";
  pod.metadata.uid = "1234-ab";
  kube::Container app;
  app.name = "app";
  app.resources.requests["cpu"] = kube::Quantity::parse("100m");
  pod.spec.containers.push_back(app);
  kube::Container side;
  side.name = "side";
  pod.spec.containers.push_back(side);
  pod.status.container_statuses.push_back(running("app", "containerd://abc"));
  return pod;
}

TEST(SampledContainers, RunningContainersUnderTheirPodCgroup) {
  kube::Pod pod = burstable_pod();
  kube::ContainerStatus waiting;
  waiting.name = "side";
  waiting.state.waiting = kube::ContainerStateWaiting{};
  pod.status.container_statuses.push_back(waiting);

  const auto cgroupfs = sampled_containers({&pod}, cri::CgroupDriver::Cgroupfs);
  ASSERT_EQ(cgroupfs.size(), 1u);
  EXPECT_EQ(cgroupfs[0].cgroup_path, "/kubepods/burstable/pod1234-ab/abc");
  EXPECT_EQ(cgroupfs[0].key.container, "app");
  EXPECT_EQ(cgroupfs[0].key.container_id, "abc");
  EXPECT_EQ(cgroupfs[0].key.pod_uid, "1234-ab");
  EXPECT_EQ(cgroupfs[0].key.ns, "shop");

  const auto systemd = sampled_containers({&pod}, cri::CgroupDriver::Systemd);
  ASSERT_EQ(systemd.size(), 1u);
  EXPECT_EQ(systemd[0].cgroup_path,
            "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1234_ab.slice/"
            "cri-containerd-abc.scope");
}

TEST(SampledContainers, PodsBeingDeletedAndContainersWithoutIdAreLeftOut) {
  kube::Pod deleting = burstable_pod();
  deleting.metadata.deletion_timestamp = "2026-11-22T08:00:00Z";
  kube::Pod starting = burstable_pod();
  starting.status.container_statuses[0].container_id.clear();
  EXPECT_TRUE(sampled_containers({&deleting, &starting}, cri::CgroupDriver::Cgroupfs).empty());
}

TEST(SampledContainers, BareIdsAndInitContainers) {
  kube::Pod pod = burstable_pod();
  pod.status.container_statuses[0].container_id = "abc";
  pod.status.init_container_statuses.push_back(running("proxy", "containerd://def"));
  const auto out = sampled_containers({&pod}, cri::CgroupDriver::Cgroupfs);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].cgroup_path, "/kubepods/burstable/pod1234-ab/abc");
  EXPECT_EQ(out[1].cgroup_path, "/kubepods/burstable/pod1234-ab/def");
}

}  // namespace
}  // namespace tailor::node::usage
