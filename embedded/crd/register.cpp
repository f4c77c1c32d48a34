#include "embedded/server/features.h"

namespace tailor::kube::embedded {

void add_custom_resources(ApiExtensions&, ObjectStore&) {}

}  // namespace tailor::kube::embedded
