#include "embedded/server/features.h"

namespace tailor::kube::embedded {

void add_mutating_webhooks(ApiExtensions&, ObjectStore&) {}

}  // namespace tailor::kube::embedded
