// Deterministic generator of a PodList as a real API server returns it (compact JSON, with
// managedFields, env, probes, volumes, full status), for decode benchmarks.
#pragma once

#include <cstdint>
#include <string>

namespace tailor::bench {

struct PodListShape {
  int pods = 10000;
  std::uint64_t seed = 42;
};

std::string generate_pod_list(const PodListShape& shape);

}  // namespace tailor::bench
