#include "controller/app/compact_pod.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <thread>
#include <vector>

#include "actuator/outcome.h"
#include "kube/model/decode.h"

namespace tailor::controller {
namespace {

// A kubelet-reported pod mid-resize: Deferred, its container OOM-killed once before.
constexpr const char* kPod = R"({
  "metadata": {"name": "web-5d9-x2k4p", "generateName": "web-5d9-", "namespace": "shop",
    "uid": "3f1b7c1e-0000-4000-8000-000000000001", "resourceVersion": "812", "generation": 3,
    "creationTimestamp": "2026-11-22T00:00:00Z", "labels": {"app": "web"},
    "annotations": {"note": "dropped"}, "finalizers": ["example.com/keep"],
    "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-5d9",
      "uid": "rs-uid", "controller": true}]},
  "spec": {"nodeName": "node-1", "containers": [{"name": "app", "image": "busybox:1.36",
    "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}, "limits": {"memory": "128Mi"}},
    "resizePolicy": [{"resourceName": "cpu", "restartPolicy": "NotRequired"}]},
    {"name": "idle", "image": "pause", "resources": {"requests": {"cpu": "0"}}}]},
  "status": {"phase": "Running", "qosClass": "Burstable", "observedGeneration": 3,
    "startTime": "2026-11-22T00:00:05Z", "hostIP": "10.0.0.1", "podIP": "10.1.0.7",
    "conditions": [
      {"type": "PodResizePending", "status": "True", "reason": "Deferred",
       "message": "Node didn't have enough resource: cpu", "observedGeneration": 3,
       "lastTransitionTime": "2026-11-22T00:01:00Z"},
      {"type": "Initialized", "status": "True", "lastTransitionTime": "2026-11-22T00:00:01Z"},
      {"type": "Ready", "status": "True", "lastTransitionTime": "2026-11-22T00:00:02Z"}],
    "containerStatuses": [{"name": "app", "image": "docker.io/library/busybox:1.36",
      "imageID": "sha256:abc", "containerID": "containerd://0123", "ready": true,
      "restartCount": 1, "state": {"running": {"startedAt": "2026-11-22T00:00:30Z"}},
      "lastState": {"terminated": {"exitCode": 137, "reason": "OOMKilled",
        "startedAt": "2026-11-22T00:00:02Z", "finishedAt": "2026-11-22T00:00:29Z"}},
      "allocatedResources": {"cpu": "100m", "memory": "64Mi"},
      "resources": {"requests": {"cpu": "100m", "memory": "64Mi"},
                    "limits": {"memory": "128Mi"}}},
      {"name": "idle", "ready": true, "restartCount": 0}]}})";

kube::Pod replica(const std::string& name) {
  kube::Pod pod = kube::decode<kube::Pod>(kPod);
  pod.metadata.name = name;
  pod.metadata.uid = "uid-" + name;
  return pod;
}

TEST(CompactPod, KeepsWhatPassesRead) {
  const kube::Pod full = kube::decode<kube::Pod>(kPod);
  PodInterner interner;
  const actuator::PodFacts pod = interner.compact(full);
  EXPECT_EQ(pod.name, "web-5d9-x2k4p");
  EXPECT_EQ(pod.uid, full.metadata.uid);
  EXPECT_EQ(pod.resource_version, "812");
  EXPECT_EQ(pod.namespace_(), "shop");
  EXPECT_EQ(pod.shared_meta->labels, full.metadata.labels);
  ASSERT_EQ(pod.shared_meta->owner_references.size(), 1u);
  EXPECT_EQ(pod.shared_meta->owner_references[0].uid, "rs-uid");
  EXPECT_EQ(pod.generation, 3);
  EXPECT_EQ(pod.started, kube::parse_rfc3339("2026-11-22T00:00:05Z"));
  EXPECT_FALSE(pod.deleting);
  EXPECT_FALSE(pod.mirror);
  EXPECT_EQ(pod.status->phase, "Running");
  EXPECT_EQ(pod.status->qos_class, kube::QosClass::Burstable);
  EXPECT_EQ(pod.status->observed_generation, 3);
  EXPECT_TRUE(pod.status->ready_condition);
  ASSERT_EQ(pod.status->resize_conditions.size(), 1u);
  EXPECT_EQ(pod.status->resize_conditions[0].reason, "Deferred");
  EXPECT_EQ(pod.status->resize_conditions[0].message, "Node didn't have enough resource: cpu");
  ASSERT_EQ(pod.containers().size(), 2u);
  EXPECT_EQ(pod.containers()[0].resources, full.spec.containers[0].resources);
  EXPECT_EQ(pod.containers()[0].resize_policy.size(), 1u);
  EXPECT_TRUE(pod.containers()[0].image.empty());
  ASSERT_TRUE(pod.find_status("app") && pod.find_status("app")->actual);
  EXPECT_EQ(*pod.find_status("app")->actual, *full.status.container_statuses[0].resources);
  EXPECT_FALSE(pod.find_status("idle")->actual);  // not reported: not taken for "nothing"
}

// A request of 0 is not a missing request: capping and sizing treat them differently.
TEST(CompactPod, AbsentIsNotZero) {
  PodInterner interner;
  const actuator::PodFacts pod = interner.compact(kube::decode<kube::Pod>(kPod));
  const kube::Container* idle = pod.find_container("idle");
  ASSERT_TRUE(idle);
  const kube::Quantity* cpu = kube::find_resource(idle->resources.requests, "cpu");
  ASSERT_TRUE(cpu);
  EXPECT_TRUE(cpu->is_zero());
  EXPECT_FALSE(kube::find_resource(idle->resources.requests, "memory"));
  EXPECT_FALSE(kube::find_resource(pod.containers()[0].resources.limits, "cpu"));
}

TEST(CompactPod, KeepsTheOomKillTime) {
  PodInterner interner;
  kube::Pod pod = kube::decode<kube::Pod>(kPod);
  EXPECT_EQ(interner.compact(pod).find_status("app")->oom_killed_at,
            kube::parse_rfc3339("2026-11-22T00:00:29Z"));
  EXPECT_FALSE(interner.compact(pod).find_status("idle")->oom_killed_at);
  // How long the killed run ran (VPA's quick OOM): finishedAt - startedAt.
  EXPECT_EQ(interner.compact(pod).find_status("app")->oom_killed_after, std::chrono::seconds(27));
  EXPECT_FALSE(interner.compact(pod).find_status("idle")->oom_killed_after);
  // A replica whose killed run started earlier has a status of its own.
  kube::Pod longer = pod;
  longer.status.container_statuses[0].last_state.terminated->started_at = "2026-11-21T23:00:29Z";
  const actuator::PodFacts quick = interner.compact(pod);
  const actuator::PodFacts slow = interner.compact(longer);
  EXPECT_NE(slow.status, quick.status);
  EXPECT_EQ(slow.find_status("app")->oom_killed_after, std::chrono::seconds(3600));
  // Without startedAt the run's length is not known.
  longer.status.container_statuses[0].last_state.terminated->started_at = "";
  EXPECT_TRUE(interner.compact(longer).find_status("app")->oom_killed_at);
  EXPECT_FALSE(interner.compact(longer).find_status("app")->oom_killed_after);
  // A last termination other than an OOM kill is never read.
  pod.status.container_statuses[0].last_state.terminated->reason = "Error";
  EXPECT_FALSE(interner.compact(pod).find_status("app")->oom_killed_at);
  EXPECT_FALSE(interner.compact(pod).find_status("app")->oom_killed_after);
}

// Replicas of one template share their labels, owners, containers and reported resources; a
// pod whose containers were resized or whose labels differ has its own.
TEST(CompactPod, ReplicasShareTheirTemplate) {
  PodInterner interner;
  const actuator::PodFacts a = interner.compact(replica("web-1"));
  const actuator::PodFacts b = interner.compact(replica("web-2"));
  EXPECT_EQ(a.shared_meta, b.shared_meta);
  EXPECT_EQ(a.spec, b.spec);
  EXPECT_EQ(a.status, b.status);
  EXPECT_NE(a.name, b.name);
  EXPECT_NE(a.uid, b.uid);

  kube::Pod resized = replica("web-3");
  resized.spec.containers[0].resources.requests.insert_or_assign("cpu",
                                                                 kube::Quantity::parse("200m"));
  const actuator::PodFacts c = interner.compact(resized);
  EXPECT_EQ(c.shared_meta, a.shared_meta);
  EXPECT_NE(c.spec, a.spec);
  EXPECT_EQ(c.spec->containers[0].resources.requests.at("cpu"), kube::Quantity::parse("200m"));

  kube::Pod other = replica("api-1");
  other.metadata.labels["app"] = "api";
  EXPECT_NE(interner.compact(other).shared_meta, a.shared_meta);
  EXPECT_EQ(interner.distinct_specs(), 2u);
}

// A replica OOM-killed at another time, or reporting other resources, has a status of its own.
TEST(CompactPod, StatusesDifferWhenTheKubeletSaysSo) {
  PodInterner interner;
  const actuator::PodFacts a = interner.compact(replica("web-1"));
  kube::Pod killed = replica("web-2");
  killed.status.container_statuses[0].last_state.terminated->finished_at = "2026-11-22T00:05:00Z";
  const actuator::PodFacts b = interner.compact(killed);
  EXPECT_NE(a.status, b.status);
  EXPECT_EQ(b.find_status("app")->oom_killed_at, kube::parse_rfc3339("2026-11-22T00:05:00Z"));
  kube::Pod reporting = replica("web-3");
  reporting.status.container_statuses[0].resources->requests.insert_or_assign(
      "cpu", kube::Quantity::parse("150m"));
  EXPECT_NE(interner.compact(reporting).status, a.status);
  EXPECT_EQ(interner.compact(replica("web-4")).status, a.status);
  EXPECT_EQ(interner.distinct_statuses(), 2u);  // a's and b's; web-3's went with its pod
}

// The same value written in another format is another part: printing keeps the format.
TEST(CompactPod, FormatsAreNotMerged) {
  PodInterner interner;
  kube::Pod bytes = replica("web-2");
  bytes.spec.containers[0].resources.limits.insert_or_assign("memory",
                                                             kube::Quantity::parse("134217728"));
  const actuator::PodFacts a = interner.compact(replica("web-1"));
  const actuator::PodFacts b = interner.compact(bytes);
  EXPECT_NE(a.spec, b.spec);
  EXPECT_EQ(b.spec->containers[0].resources.limits.at("memory").to_string(), "134217728");
}

TEST(CompactPod, PartsGoWithTheirLastPod) {
  PodInterner interner;
  {
    const actuator::PodFacts a = interner.compact(replica("web-1"));
    EXPECT_EQ(interner.distinct_metas(), 1u);
  }
  EXPECT_EQ(interner.distinct_metas(), 0u);
  EXPECT_EQ(interner.distinct_specs(), 0u);
}

// What the actuator concludes about a resize is the same from the compact pod.
TEST(CompactPod, ResizeOutcomeUnchanged) {
  const kube::Pod full = kube::decode<kube::Pod>(kPod);
  PodInterner interner;
  actuator::ObservedResize a = actuator::observe_resize(full);
  actuator::ObservedResize b = actuator::observe_resize(interner.compact(full));
  EXPECT_EQ(a.status, b.status);
  EXPECT_EQ(a.message, b.message);
  EXPECT_EQ(b.status, actuator::ResizeStatus::Deferred);
}

TEST(CompactPod, MirrorPods) {
  PodInterner interner;
  kube::Pod annotated = replica("kube-apiserver-node-1");
  annotated.metadata.annotations["kubernetes.io/config.mirror"] = "abc";
  EXPECT_TRUE(interner.compact(annotated).mirror);
  kube::Pod node_owned = replica("etcd-node-1");
  node_owned.metadata.owner_references = {
      {.api_version = "v1", .kind = "Node", .name = "node-1", .uid = "n", .controller = true}};
  EXPECT_TRUE(interner.compact(node_owned).mirror);
}

// The pod informer's threads compact while passes drop the snapshots that held pods: replicas
// compacted on different threads still share one part, and parts come and go (statuses that
// differ per pod fill the table past its purge point) without one template getting two.
TEST(CompactPod, ThreadsShareOnePartPerTemplate) {
  constexpr int kThreads = 4, kPods = 1500, kTemplates = 5;
  PodInterner interner;
  auto pod_of = [](int thread, int i) {
    kube::Pod pod = replica("web-" + std::to_string(thread) + "-" + std::to_string(i));
    pod.metadata.labels["app"] = "web-" + std::to_string(i % kTemplates);
    // A status of its own: an OOM kill at its own second.
    pod.status.container_statuses[0].last_state.terminated->finished_at =
        "2026-11-22T01:" + std::to_string(10 + i / 50) + ":" + std::to_string(10 + i % 50) + "Z";
    return pod;
  };
  std::vector<std::vector<actuator::PodFacts>> kept(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::vector<actuator::PodFacts> recent;
      for (int i = 0; i < kPods; ++i) {
        recent.push_back(interner.compact(pod_of(t, i)));
        if (recent.size() > 2 * kTemplates) recent.erase(recent.begin());  // a pod deleted
      }
      kept[t] = std::move(recent);
    });
  }
  for (std::thread& thread : threads) thread.join();
  std::map<std::string, const kube::ObjectMeta*> meta_of_app;
  for (const auto& pods : kept) {
    for (const actuator::PodFacts& pod : pods) {
      EXPECT_EQ(pod.spec, kept[0][0].spec);
      auto it =
          meta_of_app.try_emplace(pod.shared_meta->labels.at("app"), pod.shared_meta.get()).first;
      EXPECT_EQ(it->second, pod.shared_meta.get()) << it->first;
    }
  }
  EXPECT_EQ(meta_of_app.size(), static_cast<std::size_t>(kTemplates));
  EXPECT_EQ(interner.distinct_metas(), static_cast<std::size_t>(kTemplates));
  EXPECT_EQ(interner.distinct_specs(), 1u);
}

}  // namespace
}  // namespace tailor::controller
