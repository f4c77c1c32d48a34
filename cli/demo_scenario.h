// The demo's steps against a running cluster: size the workloads from the nodes, apply the CRDs,
// deploy policies and workloads into a namespace of its own, then watch (reading everything
// back from the API) until every case has happened, nudging the scenario along the way: the
// grower's ReplicaSet is unpinned once its first pod sits on the small node, and the ballast is
// deleted once the cache's resize has been seen Deferred.
#pragma once

#include <atomic>
#include <chrono>
#include <string>
#include <vector>

#include "cli/demo_manifests.h"
#include "cli/demo_tracker.h"
#include "cli/demo_view.h"

namespace tailor::cli::demo {

struct ScenarioOptions {
  std::string kubeconfig{};
  std::string ns = "tailor-demo";
  std::vector<std::string> crd_files{};
  std::chrono::seconds timeout{300};
  bool keep = false;  // leave the namespace and its objects
  const std::atomic<bool>* interrupted = nullptr;
};

struct ScenarioResult {
  Plan plan{};
  Summary summary{};
  std::string failure{};  // empty when every case happened
};

// Never throws: a failure (API error, timeout, interruption) is reported in `failure`, with
// what was seen until then in `summary`.
ScenarioResult run_scenario(const ScenarioOptions& options, LiveView& view);

}  // namespace tailor::cli::demo
