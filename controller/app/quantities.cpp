#include "controller/app/quantities.h"

#include <cmath>

namespace tailor::controller {

kube::ResourceList to_resource_list(const recommender::Resources& r) {
  kube::ResourceList out;
  if (std::isfinite(r.cpu_cores) && r.cpu_cores > 0) {
    out.insert_or_assign("cpu", kube::Quantity::from_milli(
                                    static_cast<std::int64_t>(std::ceil(r.cpu_cores * 1000))));
  }
  if (std::isfinite(r.memory_bytes) && r.memory_bytes > 0) {
    out.insert_or_assign(
        "memory", kube::Quantity::from_int(static_cast<std::int64_t>(std::ceil(r.memory_bytes)),
                                           kube::QuantityFormat::BinarySI));
  }
  return out;
}

recommender::Resources to_resources(const kube::ResourceList& list) {
  recommender::Resources r;
  if (const kube::Quantity* cpu = kube::find_resource(list, "cpu")) {
    r.cpu_cores = cpu->as_double();
  }
  if (const kube::Quantity* mem = kube::find_resource(list, "memory")) {
    r.memory_bytes = mem->as_double();
  }
  return r;
}

}  // namespace tailor::controller
