#include "kube/observe/version.h"

namespace tailor::kube::observe {

std::string_view tailor_version() { return TAILOR_VERSION; }

}  // namespace tailor::kube::observe
