// The resize of one pod: the new requests and limits of every controlled container, sent as one
// PATCH of pods/{name}/resize. Built so the API server will accept it: requests never removed,
// requests never above limits, limits scaled in their ratio (RequestsAndLimits) or left alone
// (RequestsOnly) and kept within the LimitRange's maxLimitRequestRatio, the pod's total within
// the largest node's allocatable, and the pod's QoS class unchanged. With at_creation the same
// computation sizes a pod being created (the webhook's patch is built from changes[].after).
#pragma once

#include <string>
#include <vector>

#include "actuator/caps.h"
#include "actuator/pod_facts.h"
#include "kube/model/encode.h"
#include "kube/model/pod.h"
#include "policy/effective.h"

namespace tailor::actuator {

struct ResizeInputs {
  const kube::Pod* pod = nullptr;
  const policy::EffectivePolicy* policy = nullptr;
  // Already capped (cap_recommendation); containers without one are left alone.
  std::vector<policy::RecommendedContainerResources> recommendations{};
  const LimitRangeItem* limit_range = nullptr;  // the namespace's merged Container item
  kube::ResourceList largest_allocatable{};     // empty: not known, no cap
  std::vector<std::string> hpa_resources{};     // resources an HPA scales on: left alone
  // The pod is being created (admission webhook, after a recreation): its QoS class is not yet
  // fixed, and LimitRange default limits are scaled as VPA's admission controller does.
  bool at_creation = false;
};

struct ContainerChange {
  std::string name{};
  kube::ResourceRequirements before{};
  kube::ResourceRequirements after{};
  bool increases_requests() const;
  bool decreases_requests() const;
};

struct ResizePlan {
  std::vector<ContainerChange> changes{};
  // Why no resize can be sent for this pod ("" when it can); changes is then empty.
  std::string blocked{};
  // Adjustments made on the way ("memory: capped to fit the largest node's allocatable 8Gi").
  std::vector<std::string> notes{};

  bool empty() const { return changes.empty(); }
  bool scale_up() const;
  kube::ResizePatch patch() const;
  std::string body() const { return kube::resize_patch(patch()); }
};

// The same inputs, the lists borrowed from the caller (decide() holds them already for the pod:
// no copy of its recommendations per plan).
struct ResizeView {
  const PodFacts* pod;
  const policy::EffectivePolicy* policy;
  const std::vector<policy::RecommendedContainerResources>& recommendations;
  const LimitRangeItem* limit_range;
  const kube::ResourceList& largest_allocatable;
  const std::vector<std::string>& hpa_resources;
  bool at_creation;
};

ResizePlan plan_resize(const ResizeInputs& inputs);
ResizePlan plan_resize_view(const ResizeView& inputs);

// The pod's requested totals (as kube::pod_requests sums them) once the plan is applied.
kube::ResourceList requests_after(const PodSpecFacts& spec, const ResizePlan& plan);

// Whether applying the plan restarts a container: a changed resource whose resizePolicy is
// RestartContainer (a policy on an unchanged resource restarts nothing). Such a resize is
// disruptive and counts against the workload's disruption limit.
bool restarts_containers(const kube::Pod& pod, const ResizePlan& plan);

}  // namespace tailor::actuator
