// CRD validation ratcheting (KEP-4008, GA in Kubernetes 1.33): on an update, a schema violation at
// a value the update leaves as it was is not reported, so an object stored under an older, looser
// schema can still be updated elsewhere. (Rules are ratcheted where they run: crd/rules.)
#pragma once

#include <boost/json/fwd.hpp>
#include <vector>

#include "embedded/storage/status_error.h"

namespace tailor::embedded::crd {

// Drops the causes whose field (or, for a missing one, its nearest present parent) has the same
// value in object as in old. Inside a list only the whole list is compared (its items are not
// correlated here). Nothing is dropped on create (old null).
void ratchet(std::vector<FieldCause>& causes, const boost::json::object& object,
             const boost::json::object* old);

}  // namespace tailor::embedded::crd
