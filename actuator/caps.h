// Capping a recommendation before it is applied, in VPA's order (utils/vpa/capping.go): the
// namespace's LimitRange first (its min/max bound the limit, so they become request bounds in the
// container's limit:request ratio; min also bounds the request itself), then the policy's
// minAllowed/maxAllowed, which win when the two disagree. Zero bounds mean "no bound".
#pragma once

#include <optional>
#include <string>

#include "kube/model/pod.h"
#include "policy/effective.h"
#include "policy/types.h"

namespace tailor::actuator {

// One item of a LimitRange (core/v1 LimitRangeItem); type "Container" or "Pod".
struct LimitRangeItem {
  std::string type{};
  kube::ResourceList max{};
  kube::ResourceList min{};
  kube::ResourceList default_limit{};  // "default"
  kube::ResourceList default_request{};
  kube::ResourceList max_limit_request_ratio{};
};

// The Container items of a namespace's LimitRanges merged as VPA does: the tightest min and max,
// the first default seen; nullopt when there is none.
std::optional<LimitRangeItem> container_limit_range(const std::vector<LimitRangeItem>& items);

// The same for the Pod items (bounds on the pod's total).
std::optional<LimitRangeItem> pod_limit_range(const std::vector<LimitRangeItem>& items);

// VPA's capProportionallyToPodLimitRange, per resource and per list (upperBound, target,
// lowerBound): when the containers' total recommendation is below the Pod item's min, every
// container is raised in proportion; when the total of their limits (in each container's
// limit:request ratio) is outside [min, max], every container is scaled so that it fits.
// (Upstream scales the target whichever list is processed; here each list is scaled itself.)
void cap_to_pod_limit_range(std::vector<policy::RecommendedContainerResources>& recommendations,
                            const kube::Pod& pod, const LimitRangeItem& pod_item);

// Caps one resource list (target, lowerBound or upperBound) for `container`.
kube::ResourceList cap_resources(kube::ResourceList recommendation,
                                 const kube::Container& container,
                                 const policy::EffectiveContainerPolicy& policy,
                                 const LimitRangeItem* limit_range);

// Caps target and both bounds; uncappedTarget is kept as given.
policy::RecommendedContainerResources cap_recommendation(
    const policy::RecommendedContainerResources& recommendation, const kube::Container& container,
    const policy::EffectiveContainerPolicy& policy, const LimitRangeItem* limit_range);

}  // namespace tailor::actuator
