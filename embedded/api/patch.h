// Patch application: JSON merge patch (RFC 7386), JSON patch (RFC 6902) and strategic merge patch
// (lists of the built-in kinds merged by their merge keys, with kubectl's $-directives).
// Invalid patches throw a StatusError (400 BadRequest, or 422 for a failed JSON patch test).
#pragma once

#include <boost/json/fwd.hpp>

namespace tailor::embedded {

boost::json::value merge_patch(const boost::json::value& target, const boost::json::value& patch);
boost::json::value json_patch(const boost::json::value& target, const boost::json::value& ops);

boost::json::value strategic_merge_patch(const boost::json::value& target,
                                         const boost::json::value& patch);

}  // namespace tailor::embedded
