// The order in which pending (Deferred) resizes are retried on each pass, as the kubelet sorts
// them: resizes that do not increase requests first (they can only free room for the others),
// then higher priority, Guaranteed before Burstable, then the one waiting longest.
#pragma once

#include <cstdint>

#include "kube/model/pod.h"
#include "kube/model/qos.h"
#include "kube/model/resources.h"
#include "kube/model/time.h"

namespace tailor::node::allocation {

struct PendingResize {
  bool increases_requests = false;
  std::int32_t priority = 0;
  kube::QosClass qos = kube::QosClass::Burstable;
  kube::TimePoint pending_since{};  // PodResizePending lastTransitionTime
};

// From the pod's desired spec and its allocated total requests. A pod without a
// PodResizePending condition has waited since `now`. Throws on a malformed lastTransitionTime.
PendingResize pending_resize(const kube::Pod& pod, const kube::ResourceList& allocated_requests,
                             kube::TimePoint now);

// Strict weak order: true when a is retried before b.
bool retry_before(const PendingResize& a, const PendingResize& b);

}  // namespace tailor::node::allocation
