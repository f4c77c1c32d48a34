// Private to quota/: ResourceQuota status as the quota controller keeps it.
#pragma once

#include <string>

#include "embedded/storage/object_store.h"

namespace tailor::embedded {

// Recomputes status.used of every ResourceQuota of namespace ns from its stored pods (admission
// only charges what comes in; what pods give back when they go or end is counted here).
void refresh_quota_status(ObjectStore& store, const std::string& ns);

}  // namespace tailor::embedded
