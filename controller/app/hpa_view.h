// The autoscaling/v2 HorizontalPodAutoscalers of the cluster, for the rule that Tailor does not
// fight an HPA scaling a workload on CPU or memory (actuator/hpa.h). Optional like the VPA
// informer: a cluster that does not serve HPAs leaves the view empty and never holds a pass.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "actuator/hpa.h"
#include "kube/client/rest_client.h"
#include "policy/target_ref.h"

namespace tailor::controller {

namespace resources {
extern const kube::ResourceType kHorizontalPodAutoscalers;
}

// HPAs by namespace.
using HorizontalScalers =
    std::map<std::string, std::vector<actuator::HorizontalScaler>, std::less<>>;

class HorizontalScalerView {
 public:
  // Disabled: never lists nor watches, and is always empty.
  HorizontalScalerView(kube::RestClient& client, bool enabled);
  ~HorizontalScalerView();
  HorizontalScalerView(const HorizontalScalerView&) = delete;
  HorizontalScalerView& operator=(const HorizontalScalerView&) = delete;

  void start();
  void stop();
  bool has_synced() const;

  HorizontalScalers by_namespace() const;
  std::vector<actuator::HorizontalScaler> in_namespace(std::string_view ns) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// One pass's HPA conflicts. A pod leaves alone what the HPAs of the workloads in its controller
// chain scale on, whichever way its policy picks it (targetRef or selector); a policy's
// condition names its targetRef's HPAs, or for a selector those of its pods' workloads.
struct PassHpaConflicts {
  std::vector<actuator::HpaConflict> policies{};          // by index into the policies given
  std::vector<std::vector<std::string>> pod_resources{};  // by pod
};
PassHpaConflicts hpa_conflicts(const HorizontalScalers& scalers,
                               const std::vector<const policy::EffectivePolicy*>& policies,
                               const std::vector<policy::PodRef>& pods,
                               const std::vector<std::optional<std::size_t>>& policy_of_pod);

}  // namespace tailor::controller
