#include "embedded/server/features.h"

namespace tailor::kube::embedded {

void add_pod_resize(ApiExtensions&, ObjectStore&) {}

}  // namespace tailor::kube::embedded
