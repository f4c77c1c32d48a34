// ValidateResourceRequirements for one container: resource names (validateContainerResourceName),
// quantities not negative (whole for extended resources), requests within limits (equal to them
// for resources that cannot be overcommitted), with Kubernetes' messages.
#pragma once

#include <boost/json/fwd.hpp>
#include <string>
#include <vector>

#include "embedded/storage/status_error.h"

namespace tailor::embedded {

// `resources` is the container's resources value (may be null); `path` its field path,
// e.g. "spec.containers[0].resources".
std::vector<FieldCause> validate_resource_requirements(const boost::json::value* resources,
                                                       const std::string& path);

}  // namespace tailor::embedded
