// Private to controllers/: the body of a pods/eviction POST as JSON. kubectl drain's typed
// client sends policy/v1 Eviction in Kubernetes' protobuf encoding ("k8s\0" + runtime.Unknown);
// only the fields eviction reads are decoded (metadata.name/namespace, deleteOptions'
// gracePeriodSeconds, preconditions and dryRun; field numbers from k8s.io/api policy/v1 and
// apimachinery meta/v1).
#pragma once

#include <boost/json.hpp>
#include <string_view>

namespace tailor::embedded {

// Throws StatusError 400 for a body that is neither.
boost::json::object eviction_body(std::string_view content_type, std::string_view body);

}  // namespace tailor::embedded
