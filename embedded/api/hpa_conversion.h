// autoscaling/v1 HorizontalPodAutoscalers are served from the stored autoscaling/v2 objects, as
// kube-apiserver does (pkg/apis/autoscaling/v1/conversion.go): v1 keeps only the CPU utilization
// target and current value in its fields; the other metrics, the current metrics, the behavior
// and the conditions travel in autoscaling.alpha.kubernetes.io/* annotations so that a v1
// read-modify-write loses nothing. Pure functions: JSON in, JSON out.
#pragma once

#include <boost/json.hpp>

namespace tailor::embedded {

// autoscaling/v1 -> autoscaling/v2 (request bodies, the result of a v1 patch).
boost::json::object hpa_v1_to_v2(const boost::json::object& v1);
// autoscaling/v2 -> autoscaling/v1 (responses, watch events, what a v1 patch applies to).
boost::json::object hpa_v2_to_v1(const boost::json::object& v2);

}  // namespace tailor::embedded
