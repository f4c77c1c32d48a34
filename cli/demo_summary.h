// The demo's closing report (text for people, JSON for scripts), built only from what the
// tracker read back from the API, and the checks that decide the exit code.
#pragma once

#include <string>
#include <vector>

#include "cli/demo_manifests.h"
#include "cli/demo_tracker.h"

namespace tailor::cli::demo {

struct Check {
  std::string name{};
  bool ok = false;
  std::string detail{};
};

struct RunInfo {
  std::string kubeconfig{}, ns{};
  bool cluster_kept = false;    // the cluster stays up (--keep, or --kubeconfig)
  bool namespace_kept = false;  // --keep
  std::string cluster_dir{};
  double duration_seconds = 0;
  std::string failure{};  // why the demo stopped early, if it did
};

// What must hold at the end: resizes in place without restarts, and (when the nodes allow the
// fallbacks) an Infeasible resize recreated elsewhere and a Deferred one completed.
std::vector<Check> evaluate(const Summary& summary, const Plan& plan);
bool all_ok(const std::vector<Check>& checks);

std::string report_text(const Summary& summary, const Plan& plan, const std::vector<Check>& checks,
                        const RunInfo& run);
std::string report_json(const Summary& summary, const Plan& plan, const std::vector<Check>& checks,
                        const RunInfo& run);

}  // namespace tailor::cli::demo
