// ValidatePodCreate's container rules (k8s.io/kubernetes pkg/apis/core/validation) over pod JSON:
// container names, images, ports, probes and resources, with kube-apiserver's field paths and
// messages; and the canonical quantities kube-apiserver's decoding leaves in a stored pod.
#pragma once

#include <boost/json/fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "embedded/storage/status_error.h"

namespace tailor::embedded {

// Rewrites every quantity of the pod's resources (containers, init containers, pod level,
// overhead) in canonical form, as decoding and encoding a Pod does (" 1" -> "1", 0.5 -> "500m").
// Throws a 400 "Pod in version "v1" cannot be handled as a Pod: <apimachinery's error>" for one
// that is not a quantity.
void canonicalize_pod_quantities(boost::json::object& pod);

// IsValidPortNum's message.
inline constexpr const char* kPortRange = "must be between 1 and 65535, inclusive";
// IsValidPortName (IANA service names): its messages, empty when valid.
std::vector<std::string> port_name_errors(std::string_view name);

// The field errors of the pod's spec.containers and spec.initContainers, in kube-apiserver's
// order; empty when valid. `pod` may be a pod template (ValidatePodTemplateSpec), whose errors are
// named from `prefix` ("spec.template." for a Deployment's).
std::vector<FieldCause> validate_pod_spec(const boost::json::object& pod,
                                          const std::string& prefix = "");

}  // namespace tailor::embedded
