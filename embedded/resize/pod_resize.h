// The rules of pods/resize (KEP-1287, Kubernetes 1.35) as pure functions over pod JSON: what a
// resize request may change (the registry's resize strategy) and its validation
// (ValidatePodResize), with kube-apiserver's field paths and messages.
#pragma once

#include <boost/json/fwd.hpp>
#include <vector>

#include "embedded/storage/status_error.h"

namespace tailor::embedded {

// The pod a resize request asks for: the stored pod with the resources and resizePolicy of every
// container and init container taken from the request. When containers were added, removed,
// renamed or reordered the request is returned unchanged, for validation to reject.
boost::json::object resize_target(const boost::json::object& requested,
                                  const boost::json::object& stored);

// The field errors of resizing `stored` into `resized` (a resize_target); empty when allowed.
std::vector<FieldCause> validate_pod_resize(const boost::json::object& resized,
                                            const boost::json::object& stored);

// A plain pod update (no subresource) may not change container resources: the errors, empty when
// the resources are unchanged.
std::vector<FieldCause> validate_pod_update_resources(const boost::json::object& updated,
                                                      const boost::json::object& stored);

}  // namespace tailor::embedded
