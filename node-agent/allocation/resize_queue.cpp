#include "node-agent/allocation/resize_queue.h"

#include <string_view>

#include "kube/model/pod_resources.h"

namespace tailor::node::allocation {
namespace {

bool increases(const kube::ResourceList& desired, const kube::ResourceList& allocated,
               std::string_view resource) {
  const kube::Quantity* want = kube::find_resource(desired, resource);
  const kube::Quantity* have = kube::find_resource(allocated, resource);
  if (want == nullptr) return false;
  return have == nullptr ? want->sign() > 0 : *want > *have;
}

int qos_rank(kube::QosClass qos) {
  switch (qos) {
    case kube::QosClass::Guaranteed:
      return 0;
    case kube::QosClass::Burstable:
      return 1;
    case kube::QosClass::BestEffort:
      return 2;
  }
  return 3;
}

}  // namespace

PendingResize pending_resize(const kube::Pod& pod, const kube::ResourceList& allocated_requests,
                             kube::TimePoint now) {
  const kube::ResourceList desired = kube::pod_requests(pod);
  PendingResize pending;
  pending.increases_requests = increases(desired, allocated_requests, kube::kResourceCpu) ||
                               increases(desired, allocated_requests, kube::kResourceMemory);
  pending.priority = pod.spec.priority.value_or(0);
  pending.qos = kube::pod_qos(pod);
  const kube::PodCondition* condition = kube::find_condition(pod.status, kube::kPodResizePending);
  pending.pending_since = condition == nullptr || condition->last_transition_time.empty()
                              ? now
                              : kube::parse_rfc3339(condition->last_transition_time);
  return pending;
}

bool retry_before(const PendingResize& a, const PendingResize& b) {
  if (a.increases_requests != b.increases_requests) return !a.increases_requests;
  if (a.priority != b.priority) return a.priority > b.priority;
  if (a.qos != b.qos) return qos_rank(a.qos) < qos_rank(b.qos);
  return a.pending_since < b.pending_since;
}

}  // namespace tailor::node::allocation
