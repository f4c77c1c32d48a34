#include "embedded/server/features.h"

namespace tailor::kube::embedded {

void add_eviction_and_binding(ApiExtensions&, ObjectStore&) {}

std::vector<std::unique_ptr<ControlLoop>> make_control_loops(ObjectStore&) { return {}; }

}  // namespace tailor::kube::embedded
