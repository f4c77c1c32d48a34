// Lease (coordination.k8s.io/v1), used for leader election.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "kube/model/meta.h"

namespace tailor::kube {

struct LeaseSpec {
  std::string holder_identity{};  // empty: not held
  std::optional<std::int32_t> lease_duration_seconds{};
  std::string acquire_time{};  // metav1.MicroTime
  std::string renew_time{};    // metav1.MicroTime
  std::optional<std::int32_t> lease_transitions{};
};

struct Lease {
  ObjectMeta metadata{};
  LeaseSpec spec{};
};

}  // namespace tailor::kube
