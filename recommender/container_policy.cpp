#include "recommender/container_policy.h"

#include <algorithm>

namespace tailor::recommender {
namespace {
Resources cap(Resources v, const ContainerPolicy& p) {
  v.cpu_cores = std::min(std::max(v.cpu_cores, p.min_allowed.cpu_cores), p.max_allowed.cpu_cores);
  v.memory_bytes =
      std::min(std::max(v.memory_bytes, p.min_allowed.memory_bytes), p.max_allowed.memory_bytes);
  return v;
}
}  // namespace

Recommendation apply_container_policy(const Recommendation& r, const ContainerPolicy& p) {
  Recommendation out;
  out.uncapped_target = r.target;
  out.target = cap(r.target, p);
  out.lower_bound = cap(r.lower_bound, p);
  out.upper_bound = cap(r.upper_bound, p);
  return out;
}

}  // namespace tailor::recommender
