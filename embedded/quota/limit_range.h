// LimitRange as the LimitRanger admission plugin applies it to pods, as pure functions over JSON:
// defaulting of container requests/limits, and min / max / maxLimitRequestRatio checks with
// Kubernetes' messages. Also the API's defaulting of a LimitRange itself.
#pragma once

#include <boost/json/fwd.hpp>
#include <string>
#include <vector>

namespace tailor::embedded {

// SetDefaults_LimitRangeItem for Container items: default limit from max, default request from
// the default limit, else from min.
void default_limit_range(boost::json::object& limit_range);

// Fills the requests/limits containers leave unset from the LimitRange's Container defaults and
// records them in the kubernetes.io/limit-ranger annotation. True when anything changed.
bool apply_limit_range_defaults(boost::json::object& pod, const boost::json::object& limit_range);

// The violations of one LimitRange by a pod, in Kubernetes' words
// ("maximum cpu usage per Container is 1, but limit is 2"); empty when it complies.
std::vector<std::string> limit_range_violations(const boost::json::object& pod,
                                                const boost::json::object& limit_range);

// utilerrors.NewAggregate(...).Error(): one message as is, several as "[a, b]".
std::string aggregate(const std::vector<std::string>& messages);

}  // namespace tailor::embedded
