#include "controller/app/lean_pod.h"

#include <gtest/gtest.h>

#include "actuator/outcome.h"
#include "controller/kube/model/decode.h"

namespace tailor::controller {
namespace {

// A kubelet-reported pod mid-resize: Deferred, its container OOM-killed once before.
constexpr const char* kPod = R"({
  "metadata": {"name": "web-5d9-x2k4p", "generateName": "web-5d9-", "namespace": "shop",
    "uid": "3f1b7c1e-0000-4000-8000-000000000001", "resourceVersion": "812", "generation": 3,
    "creationTimestamp": "2026-11-22T00:00:00Z", "labels": {"app": "web"},
    "annotations": {"kubernetes.io/config.mirror": "abc", "note": "dropped"},
    "finalizers": ["example.com/keep"],
    "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-5d9",
      "uid": "rs-uid", "controller": true}]},
  "spec": {"nodeName": "node-1", "containers": [{"name": "app", "image": "busybox:1.36",
    "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}, "limits": {"memory": "128Mi"}},
    "resizePolicy": [{"resourceName": "cpu", "restartPolicy": "NotRequired"}]}]},
  "status": {"phase": "Running", "qosClass": "Burstable", "observedGeneration": 3,
    "hostIP": "10.0.0.1", "podIP": "10.1.0.7", "message": "dropped",
    "conditions": [
      {"type": "PodResizePending", "status": "True", "reason": "Deferred",
       "message": "Node didn't have enough resource: cpu", "observedGeneration": 3,
       "lastTransitionTime": "2026-11-22T00:01:00Z", "lastProbeTime": "2026-11-22T00:01:00Z"},
      {"type": "Initialized", "status": "True", "lastTransitionTime": "2026-11-22T00:00:01Z"},
      {"type": "Ready", "status": "True", "lastTransitionTime": "2026-11-22T00:00:02Z"},
      {"type": "ContainersReady", "status": "True", "lastTransitionTime": "2026-11-22T00:00:02Z"},
      {"type": "PodScheduled", "status": "True", "lastTransitionTime": "2026-11-22T00:00:00Z"}],
    "containerStatuses": [{"name": "app", "image": "docker.io/library/busybox:1.36",
      "imageID": "sha256:abc", "containerID": "containerd://0123", "ready": true,
      "started": true, "restartCount": 1,
      "state": {"running": {"startedAt": "2026-11-22T00:00:30Z"}},
      "lastState": {"terminated": {"exitCode": 137, "reason": "OOMKilled",
        "startedAt": "2026-11-22T00:00:02Z", "finishedAt": "2026-11-22T00:00:29Z",
        "containerID": "containerd://0122"}},
      "allocatedResources": {"cpu": "100m", "memory": "64Mi"},
      "resources": {"requests": {"cpu": "100m", "memory": "64Mi"},
                    "limits": {"memory": "128Mi"}}}]}})";

std::vector<std::string> condition_types(const kube::Pod& pod) {
  std::vector<std::string> out;
  for (const auto& c : pod.status.conditions) out.push_back(c.type);
  return out;
}

TEST(LeanPod, KeepsWhatPassesRead) {
  const kube::Pod full = kube::decode<kube::Pod>(kPod);
  const kube::Pod lean = lean_pod(full);
  EXPECT_EQ(lean.metadata.uid, full.metadata.uid);
  EXPECT_EQ(lean.metadata.labels, full.metadata.labels);
  EXPECT_EQ(lean.metadata.owner_references.size(), 1u);
  EXPECT_EQ(lean.metadata.generation, 3);
  EXPECT_EQ(lean.metadata.creation_timestamp, "2026-11-22T00:00:00Z");
  EXPECT_EQ(lean.spec.node_name, "node-1");
  EXPECT_EQ(lean.spec.containers[0].resources, full.spec.containers[0].resources);
  EXPECT_EQ(lean.spec.containers[0].resize_policy.size(), 1u);
  EXPECT_EQ(lean.status.phase, "Running");
  EXPECT_EQ(lean.status.qos_class, "Burstable");
  EXPECT_EQ(lean.status.observed_generation, 3);
  const kube::ContainerStatus& s = lean.status.container_statuses.at(0);
  EXPECT_EQ(s.restart_count, 1);
  EXPECT_TRUE(s.ready);
  EXPECT_EQ(s.allocated_resources, full.status.container_statuses[0].allocated_resources);
  EXPECT_EQ(s.resources, full.status.container_statuses[0].resources);
  ASSERT_TRUE(s.last_state.terminated);
  EXPECT_EQ(s.last_state.terminated->reason, "OOMKilled");
  EXPECT_EQ(s.last_state.terminated->finished_at, "2026-11-22T00:00:29Z");
  EXPECT_EQ(lean.metadata.annotations.count("kubernetes.io/config.mirror"), 1u);
}

TEST(LeanPod, DropsWhatNoPassReads) {
  const kube::Pod lean = lean_pod(kube::decode<kube::Pod>(kPod));
  EXPECT_EQ(lean.metadata.annotations.size(), 1u);
  EXPECT_TRUE(lean.metadata.generate_name.empty());
  EXPECT_TRUE(lean.metadata.finalizers.empty());
  EXPECT_TRUE(lean.spec.containers[0].image.empty());
  EXPECT_TRUE(lean.status.host_ip.empty());
  EXPECT_TRUE(lean.status.pod_ip.empty());
  EXPECT_TRUE(lean.status.message.empty());
  const kube::ContainerStatus& s = lean.status.container_statuses.at(0);
  EXPECT_TRUE(s.image.empty());
  EXPECT_TRUE(s.image_id.empty());
  EXPECT_TRUE(s.container_id.empty());
  EXPECT_FALSE(s.state.running);
  EXPECT_TRUE(s.last_state.terminated->container_id.empty());
  EXPECT_EQ(condition_types(lean), (std::vector<std::string>{"PodResizePending", "Ready"}));
  EXPECT_TRUE(lean.status.conditions[0].last_probe_time.empty());
}

// A last termination other than an OOM kill is never read: it goes.
TEST(LeanPod, DropsTerminationsOtherThanOomKills) {
  kube::Pod pod = kube::decode<kube::Pod>(kPod);
  pod.status.container_statuses[0].last_state.terminated->reason = "Error";
  EXPECT_FALSE(lean_pod(pod).status.container_statuses[0].last_state.terminated);
}

// What the actuator concludes about a resize is the same from the lean pod.
TEST(LeanPod, ResizeOutcomeUnchanged) {
  const kube::Pod full = kube::decode<kube::Pod>(kPod);
  const kube::Pod lean = lean_pod(full);
  actuator::ObservedResize a = actuator::observe_resize(full);
  actuator::ObservedResize b = actuator::observe_resize(lean);
  EXPECT_EQ(a.status, b.status);
  EXPECT_EQ(a.message, b.message);
  EXPECT_EQ(b.status, actuator::ResizeStatus::Deferred);
}

}  // namespace
}  // namespace tailor::controller
