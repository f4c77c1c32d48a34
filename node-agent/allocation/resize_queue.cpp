#include "node-agent/allocation/resize_queue.h"

#include <string_view>

#include "kube/model/pod_resources.h"

namespace tailor::kube::node {
namespace {

bool increases(const ResourceList& desired, const ResourceList& allocated,
               std::string_view resource) {
  const Quantity* want = find_resource(desired, resource);
  const Quantity* have = find_resource(allocated, resource);
  if (want == nullptr) return false;
  return have == nullptr ? want->sign() > 0 : *want > *have;
}

int qos_rank(QosClass qos) {
  switch (qos) {
    case QosClass::Guaranteed:
      return 0;
    case QosClass::Burstable:
      return 1;
    case QosClass::BestEffort:
      return 2;
  }
  return 3;
}

}  // namespace

PendingResize pending_resize(const Pod& pod, const ResourceList& allocated_requests,
                             TimePoint now) {
  const ResourceList desired = pod_requests(pod);
  PendingResize pending;
  pending.increases_requests = increases(desired, allocated_requests, kResourceCpu) ||
                               increases(desired, allocated_requests, kResourceMemory);
  pending.priority = pod.spec.priority.value_or(0);
  pending.qos = pod_qos(pod);
  const PodCondition* condition = find_condition(pod.status, kPodResizePending);
  pending.pending_since = condition == nullptr || condition->last_transition_time.empty()
                              ? now
                              : parse_rfc3339(condition->last_transition_time);
  return pending;
}

bool retry_before(const PendingResize& a, const PendingResize& b) {
  if (a.increases_requests != b.increases_requests) return !a.increases_requests;
  if (a.priority != b.priority) return a.priority > b.priority;
  if (a.qos != b.qos) return qos_rank(a.qos) < qos_rank(b.qos);
  return a.pending_since < b.pending_since;
}

}  // namespace tailor::kube::node
