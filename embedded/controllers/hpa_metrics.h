// Private to controllers/: validateMetrics of autoscaling/v2 HorizontalPodAutoscalers for the
// metric sources Tailor reads (Resource and ContainerResource: which resource an HPA scales on),
// with kube-apiserver's field paths and messages; the other sources get their type checks.
#pragma once

#include <boost/json/fwd.hpp>
#include <vector>

#include "embedded/storage/status_error.h"

namespace tailor::embedded {

std::vector<FieldCause> metric_errors(const boost::json::object& hpa);

}  // namespace tailor::embedded
