// What the demo deploys, sized from the nodes it runs on: busybox workloads whose CPU and memory
// use exceeds their requests (and changes), the policies that watch them, and a ballast pod that
// holds capacity on the big node until the demo frees it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cli/demo_api.h"

namespace tailor::cli::demo {

// Workload names (also their `app` label).
inline constexpr const char* kWeb = "web";          // in place, on the big node
inline constexpr const char* kGrower = "grower";    // Infeasible on the small node -> recreated
inline constexpr const char* kCache = "cache";      // Deferred on the big node until freed
inline constexpr const char* kBallast = "ballast";  // holds the big node's memory

struct Plan {
  std::string small_node{}, big_node{};
  std::int64_t small_memory_mi = 0, big_memory_mi = 0;
  // The Infeasible and Deferred cases need two nodes of suitable sizes; else only in place.
  bool fallbacks = false;
  std::string why_no_fallbacks{};
  std::int64_t grower_mi = 0, cache_mi = 0, ballast_mi = 0;
  int web_replicas = 2;
};

// Picks the smallest and the largest Ready node (by allocatable memory) and sizes the workloads
// so that the grower's memory target exceeds the small node's allocatable while fitting the big
// one, and the cache's target fits the big node only once the ballast is gone.
// Throws std::runtime_error when no node is Ready.
Plan plan_scenario(const std::vector<NodeView>& nodes);

// The objects to create, in order (policies before their workloads), as JSON.
std::vector<std::string> policies(const Plan& plan);
std::vector<std::string> workloads(const Plan& plan);
// The merge patch that lets the grower's replacement go to any node.
std::string grower_unpin_patch();

}  // namespace tailor::cli::demo
