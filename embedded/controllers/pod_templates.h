// Private to controllers/: pods made from a workload's template, and how long deleting one takes.
#pragma once

#include <boost/json.hpp>
#include <string>

#include "embedded/storage/resource_info.h"

namespace tailor::embedded {

// A pod from owner's spec.template: template labels and annotations, the owner as controller,
// and generateName (or name, when `name` is given).
boost::json::object pod_from_template(const boost::json::object& owner,
                                      const ResourceInfo& owner_resource,
                                      const std::string& generate_name,
                                      const std::string& name = "");
// As the API server deletes a pod without a grace period in the request: a bound, running pod
// gets its terminationGracePeriodSeconds (default 30) and its node's kubelet finishes it.
std::int64_t pod_grace_seconds(const boost::json::object& pod);
// spec.template without the labels a controller adds (pod-template-hash, ...), for comparing
// templates.
boost::json::value template_without_label(const boost::json::object& pod_template,
                                          const std::string& label);

}  // namespace tailor::embedded
