#include "policy/resources.h"

#include "policy/types.h"

namespace tailor::policy {

namespace resources {
const kube::ResourceType kVerticalScalingPolicies{std::string(kTailorGroup), "v1alpha1",
                                                  "verticalscalingpolicies", true};
const kube::ResourceType kVerticalPodAutoscalers{std::string(kVpaGroup), "v1",
                                                 "verticalpodautoscalers", true};
const kube::ResourceType kVerticalScalingCheckpoints{std::string(kTailorGroup), "v1alpha1",
                                                     "verticalscalingcheckpoints", true};
const kube::ResourceType kVerticalPodAutoscalerCheckpoints{
    std::string(kVpaGroup), "v1", "verticalpodautoscalercheckpoints", true};
}  // namespace resources

const kube::ResourceType& resource_of(PolicyApi api) {
  return api == PolicyApi::VerticalPodAutoscaler ? resources::kVerticalPodAutoscalers
                                                 : resources::kVerticalScalingPolicies;
}

std::string_view kind_of(PolicyApi api) {
  return api == PolicyApi::VerticalPodAutoscaler ? "VerticalPodAutoscaler"
                                                 : "VerticalScalingPolicy";
}

std::string_view api_version_of(PolicyApi api) {
  return api == PolicyApi::VerticalPodAutoscaler ? kVpaApiVersion : kTailorApiVersion;
}

const std::vector<std::pair<std::string, kube::ResourceType>>& owner_kinds() {
  static const std::vector<std::pair<std::string, kube::ResourceType>> kKinds = {
      {"ReplicaSet", kube::resources::kReplicaSets},
      {"Deployment", kube::resources::kDeployments},
      {"StatefulSet", kube::resources::kStatefulSets},
      {"DaemonSet", kube::resources::kDaemonSets},
      {"Job", kube::resources::kJobs},
      {"CronJob", kube::resources::kCronJobs}};
  return kKinds;
}

}  // namespace tailor::policy
