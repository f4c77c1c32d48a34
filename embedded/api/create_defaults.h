// What the server fills in on create (kube-apiserver's defaulting of the built-in kinds): a pod's
// spec defaults (SetDefaults_Pod), its quantities canonical, status Pending with its QoS class; a
// namespace's finalizer and phase Active. Pure, so the fuzz targets run it as create does.
#pragma once

#include <boost/json/fwd.hpp>

#include "embedded/storage/resource_info.h"

namespace tailor::embedded {

void apply_create_defaults(const ResourceInfo& resource, boost::json::object& object);

}  // namespace tailor::embedded
