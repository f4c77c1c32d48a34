#include "embedded/api/tables.h"

namespace tailor::kube::embedded {

const Printer* policy_printer(const ResourceInfo&) { return nullptr; }

}  // namespace tailor::kube::embedded
