#include "embedded/server/features.h"

namespace tailor::kube::embedded {

void add_quota_and_limit_ranges(ApiExtensions&, ObjectStore&) {}

}  // namespace tailor::kube::embedded
