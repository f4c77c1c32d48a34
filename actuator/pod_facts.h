// What the actuator and a controller pass read of a pod, as plain values. tailor-controller keeps
// one per pod for 100,000 pods, so the parts replicas of one template have in common (namespace,
// labels and owners; containers' names, resources and resize policies; the status as read here)
// are held through shared pointers that the controller interns
// (controller/app/compact_pod): ten pods of a ReplicaSet hold one copy (bench/RESULTS.md "Scale").
// The webhook and the table tests read a kube::Pod through pod_facts().
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kube/model/meta.h"
#include "kube/model/pod.h"
#include "kube/model/qos.h"
#include "kube/model/time.h"

namespace tailor::actuator {

struct BoostRecord;  // actuator/startup_boost.h

// The spec as sizing reads it: pod_requests and compute_pod_qos look at nothing else.
struct PodSpecFacts {
  // Names, resources, resize policies; init containers also their restartPolicy (sidecars).
  // No images.
  std::vector<kube::Container> containers{};
  std::vector<kube::Container> init_containers{};
  kube::ResourceList overhead{};
  std::optional<kube::ResourceRequirements> resources{};  // pod-level resources
  bool windows = false;                                   // spec.os.name "windows"
};

struct ContainerStatusFacts {
  std::string name{};
  // When the last termination was an OOM kill: its finishedAt (nullopt also when unreadable).
  std::optional<kube::TimePoint> oom_killed_at{};
  // How long that OOM-killed run ran (finishedAt - startedAt); nullopt unless both read.
  std::optional<std::chrono::seconds> oom_killed_after{};
  // What the runtime reports (status.containerStatuses[].resources); nullopt when not reported.
  std::optional<kube::ResourceRequirements> actual{};
};

// The status as the actuator reads it. Replicas report the same one until something happens to
// one of them (a resize, an OOM kill), so it is shared too.
struct PodStatusFacts {
  std::string phase{};
  std::optional<kube::QosClass> qos_class{};  // status.qosClass when it names a class
  std::int64_t observed_generation = 0;       // status.observedGeneration
  std::string legacy_resize{};                // status.resize (< 1.33)
  bool ready_condition = false;               // the Ready condition is True
  // PodResizePending / PodResizeInProgress: type, status, reason, message, observedGeneration
  // (other conditions, and the times, are not kept).
  std::vector<kube::PodCondition> resize_conditions{};
  std::vector<ContainerStatusFacts> container_statuses{};
};

struct PodFacts {
  std::string name{};
  std::string uid{};
  // spec.nodeName ("" while unscheduled): the usage stream takes a pod's windows only from the
  // agent of this node.
  std::string node_name{};
  std::string resource_version{};
  // namespace, labels and ownerReferences only (policy assignment and owner chains read these);
  // never null.
  std::shared_ptr<const kube::ObjectMeta> shared_meta{};
  std::shared_ptr<const PodSpecFacts> spec{};      // never null
  std::shared_ptr<const PodStatusFacts> status{};  // never null
  std::int64_t generation = 0;
  // status.startTime, else metadata.creationTimestamp; nullopt when neither reads.
  std::optional<kube::TimePoint> started{};
  // The start-up boost annotation's record (actuator/startup_boost.h) while a pass still has
  // something to do with it: a boost not yet taken back, or a skip to tell. Null otherwise (no
  // annotation, one already reverted, or one that does not read). Parsed once per pod update,
  // not once per pass; together with ready_since (when the Ready condition last turned True,
  // nullopt while not Ready) it is what the revert waits on.
  std::shared_ptr<const BoostRecord> startup_boost{};
  std::optional<kube::TimePoint> ready_since{};
  bool deleting = false;  // metadata.deletionTimestamp set
  bool mirror = false;    // a static pod's mirror (the kubelet owns it)

  const std::string& namespace_() const { return shared_meta->namespace_; }
  const std::vector<kube::Container>& containers() const { return spec->containers; }
  const kube::Container* find_container(std::string_view name) const;
  const ContainerStatusFacts* find_status(std::string_view name) const;
  const kube::PodCondition* find_condition(std::string_view type) const;
  // Whether startup_boost holds a boost not yet taken back (boost_active): passes and usage
  // windows ask it of every pod.
  bool startup_boosted() const;
};

// The facts of a pod, with parts of its own (nothing shared with other pods).
PodFacts pod_facts(const kube::Pod& pod);

// A pod holding only what sizing reads (containers' names, resources and restartPolicy,
// overhead, pod-level resources): what pod_requests and compute_pod_qos look at. A pass sizes
// every pod its update rule wants changed; copying the whole pod for each made up half of a
// plan's time.
kube::Pod sizing_pod(const PodSpecFacts& spec);

}  // namespace tailor::actuator
