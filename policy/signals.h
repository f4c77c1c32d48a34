// What Tailor tells when it acts on a pod: events and pod annotations. On a VerticalPodAutoscaler
// object's pods, VPA's own (its updater's event reasons and messages, its admission controller's
// and updater's annotations), so that dashboards, alerts and scripts keyed on them keep working;
// on a VerticalScalingPolicy's, Tailor's. Pure: the controller sends what these return.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "policy/effective.h"

namespace tailor::policy {

// VPA's event reasons (its updater's) and annotation names (admission controller and updater).
inline constexpr std::string_view kEvictedByVpa = "EvictedByVPA";  // on the pod
inline constexpr std::string_view kEvictedPod = "EvictedPod";      // on the VPA object
inline constexpr std::string_view kInPlaceResizedByVpa = "InPlaceResizedByVPA";  // on the pod
inline constexpr std::string_view kVpaUpdatesAnnotation = "vpaUpdates";
inline constexpr std::string_view kVpaObservedContainersAnnotation = "vpaObservedContainers";
inline constexpr std::string_view kVpaInPlaceUpdatedAnnotation = "vpaInPlaceUpdated";

// Tailor's own reasons on a VerticalScalingPolicy's pods.
inline constexpr std::string_view kRecreating = "Recreating";
inline constexpr std::string_view kResizeRequested = "ResizeRequested";

struct ActionEvent {
  enum class On { Pod, Policy } on = On::Pod;
  std::string type{};  // "Normal" | "Warning"
  std::string reason{};
  std::string message{};
};

// After an accepted eviction of `pod` (why: Tailor's reason, for Tailor's own message).
std::vector<ActionEvent> eviction_events(PolicyApi api, std::string_view pod, std::string_view why);
// After an accepted PATCH of pods/{name}/resize.
std::vector<ActionEvent> resize_events(PolicyApi api, std::string_view why);

using Annotation = std::pair<std::string, std::string>;

// What the admission webhook changed in one container, by its index in spec.containers.
struct ContainerUpdate {
  std::size_t index = 0;
  std::vector<std::string> requests{};  // resource names set, e.g. {"cpu", "memory"}
  std::vector<std::string> limits{};
};

// The annotations the webhook adds to a new pod of this policy: for VPA objects
// vpaObservedContainers (every container's name, ", "-joined) and, when it set anything,
// vpaUpdates ("Pod resources updated by <vpa>: container 0: cpu request, memory request");
// none for Tailor's policies.
std::vector<Annotation> admission_annotations(PolicyApi api, std::string_view policy_name,
                                              const std::vector<std::string>& containers,
                                              const std::vector<ContainerUpdate>& updates);

// The annotations put on a pod resized in place: vpaInPlaceUpdated "true" for VPA objects, as
// VPA's updater marks the pods it resizes; none for Tailor's policies.
std::vector<Annotation> in_place_annotations(PolicyApi api);

}  // namespace tailor::policy
