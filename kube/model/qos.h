// Pod QoS class, computed exactly as Kubernetes does (pkg/apis/core/helper/qos, 1.35 with
// PodLevelResources): only cpu and memory count, zero quantities count as unset, init
// containers count like regular ones, and pod-level resources (spec.resources) decide alone
// when they name cpu, memory or hugepages.
#pragma once

#include <optional>
#include <string_view>

#include "kube/model/pod.h"

namespace tailor::kube {

enum class QosClass { Guaranteed, Burstable, BestEffort };

std::string_view to_string(QosClass qos);
std::optional<QosClass> parse_qos_class(std::string_view text);

// ComputePodQOS: from the spec alone.
QosClass compute_pod_qos(const PodSpec& spec);
// GetPodQOS: status.qosClass when the API server has set it (it never changes afterwards), else
// computed from the spec.
QosClass pod_qos(const Pod& pod);

}  // namespace tailor::kube
