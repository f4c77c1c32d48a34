#pragma once

#include <cstdint>

namespace tailor::recommender {

// Seconds since an arbitrary epoch (the trace start, or the Unix epoch in a cluster).
using Seconds = std::int64_t;

inline constexpr Seconds kHour = 3600;
inline constexpr Seconds kDay = 24 * kHour;
inline constexpr double kMiB = 1024.0 * 1024.0;

// CPU in cores, memory in bytes: the two resources Tailor controls.
struct Resources {
  double cpu_cores = 0;
  double memory_bytes = 0;
  friend bool operator==(const Resources&, const Resources&) = default;
};

// What a strategy yields for one container. uncapped_target is the target before any policy
// min/max capping; replay has no policy, so it equals target there.
struct Recommendation {
  Resources target;
  Resources lower_bound;
  Resources upper_bound;
  Resources uncapped_target;
};

// VPA's per-pod minimum (pod-recommendation-min-cpu-millicores / -min-memory-mb); the replay
// applies it to every row so that floors never decide a comparison (docs/scoring.md, section 3).
struct MinResources {
  double cpu_cores = 0.025;
  double memory_bytes = 250 * kMiB;
};

inline Resources floor_at(Resources r, const MinResources& min) {
  if (!(r.cpu_cores >= min.cpu_cores)) r.cpu_cores = min.cpu_cores;
  if (!(r.memory_bytes >= min.memory_bytes)) r.memory_bytes = min.memory_bytes;
  return r;
}

}  // namespace tailor::recommender
