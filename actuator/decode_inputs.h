// The other objects the actuator reads, decoded from API JSON into its plain inputs: LimitRange
// (core/v1) items and HorizontalPodAutoscaler (autoscaling/v2) resource metrics. Errors throw
// kube::DecodeError with the JSON path.
#pragma once

#include <string_view>
#include <vector>

#include "actuator/caps.h"
#include "actuator/hpa.h"

namespace tailor::actuator {

std::vector<LimitRangeItem> decode_limit_range(std::string_view json);
HorizontalScaler decode_horizontal_pod_autoscaler(std::string_view json);

}  // namespace tailor::actuator
