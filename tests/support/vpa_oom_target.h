// What VPA publishes after an OOM kill, for the tests that hold Tailor's vpa strategy to it
// (tests/controller/integration/oom_cluster_test.cpp through tailor-controller in-process,
// tests/e2e/oom_test.cpp on `tailor cluster up`): VPA's recommender bumps
// the memory request the container was killed at to max(request + 100Mi, request x 1.2)
// (recommender/input/oom/observer.go), and that bump, the container's only memory peak, goes
// through VPA's estimator (histogram bucket, 15 % margin, the 250Mi pod minimum) and the
// controller's rounding to a Quantity. Request = limit in these tests, so the limit VPA keeps in
// proportion is the same. That this is VPA's number and not only Tailor's:
// tests/controller/app/vpa_oom_target_test.cpp holds it to one worked out by hand from upstream.
#pragma once

#include <algorithm>

#include "controller/app/quantities.h"
#include "kube/model/quantity.h"
#include "recommender/strategy.h"

namespace tailor::controller::testing {

inline kube::Quantity vpa_oom_target(double request_bytes) {
  constexpr double kMiB = 1024.0 * 1024;
  const double bump = std::max(request_bytes + 100 * kMiB, request_bytes * 1.2);
  auto vpa = recommender::make_vpa_strategy()->create();
  vpa->observe({0, 60, 0.1, bump}, {0.1, request_bytes});
  const kube::ResourceList target = to_resource_list(vpa->recommend(60).target);
  return *kube::find_resource(target, "memory");
}

}  // namespace tailor::controller::testing
