// The signals a VPA user's dashboards, alerts and scripts key on, asserted by name: VPA's
// updater's event reasons and messages (updater/restriction: EvictedByVPA on the pod and
// EvictedPod on the VPA object after an eviction, InPlaceResizedByVPA on the pod after an
// in-place resize), its admission controller's annotations (vpaUpdates, vpaObservedContainers)
// and its updater's in-place marker (vpaInPlaceUpdated: "true"). Tailor's own on its policies.
#include "policy/signals.h"

#include <gtest/gtest.h>

namespace tailor::policy {
namespace {

struct EventRow {
  ActionEvent::On on;
  std::string type, reason, message;
  bool operator==(const EventRow&) const = default;
};

std::vector<EventRow> rows(const std::vector<ActionEvent>& events) {
  std::vector<EventRow> out;
  for (const auto& e : events) out.push_back({e.on, e.type, e.reason, e.message});
  return out;
}

using On = ActionEvent::On;

TEST(ActionEvents, EvictionAsVpasUpdaterTellsIt) {
  EXPECT_EQ(
      rows(eviction_events(PolicyApi::VerticalPodAutoscaler, "web-1", "cpu 100m -> 1")),
      (std::vector<EventRow>{{On::Pod, "Normal", "EvictedByVPA",
                              "Pod was evicted by VPA Updater to apply resource recommendation."},
                             {On::Policy, "Normal", "EvictedPod",
                              "VPA Updater evicted Pod web-1 to apply resource recommendation."}}));
  EXPECT_EQ(rows(eviction_events(PolicyApi::VerticalScalingPolicy, "web-1", "cpu 100m -> 1")),
            (std::vector<EventRow>{
                {On::Pod, "Normal", "Recreating",
                 "Evicted to be recreated with the recommended resources: cpu 100m -> 1"}}));
}

TEST(ActionEvents, InPlaceResizeAsVpasUpdaterTellsIt) {
  EXPECT_EQ(rows(resize_events(PolicyApi::VerticalPodAutoscaler, "cpu 100m -> 1")),
            (std::vector<EventRow>{{On::Pod, "Normal", "InPlaceResizedByVPA",
                                    "Pod was resized in place by VPA Updater."}}));
  EXPECT_EQ(rows(resize_events(PolicyApi::VerticalScalingPolicy, "cpu 100m -> 1")),
            (std::vector<EventRow>{
                {On::Pod, "Normal", "ResizeRequested", "Resizing in place (cpu 100m -> 1)"}}));
}

TEST(PodAnnotations, AdmissionAsVpasAdmissionControllerWritesThem) {
  // Two containers, the second (index 1) sized: the index is the container's place in
  // spec.containers, requests before limits, resources in name order.
  EXPECT_EQ(admission_annotations(
                PolicyApi::VerticalPodAutoscaler, "hamster-vpa", {"sidecar", "hamster"},
                {{.index = 0}, {.index = 1, .requests = {"cpu", "memory"}, .limits = {"memory"}}}),
            (std::vector<Annotation>{
                {"vpaUpdates",
                 "Pod resources updated by hamster-vpa: container 1: cpu request, memory request, "
                 "memory limit"},
                {"vpaObservedContainers", "sidecar, hamster"}}));
  // Nothing set: only the observed containers, as VPA's admission controller leaves them.
  EXPECT_EQ(admission_annotations(PolicyApi::VerticalPodAutoscaler, "v", {"app"}, {}),
            (std::vector<Annotation>{{"vpaObservedContainers", "app"}}));
  // Several containers sized: "; "-joined.
  EXPECT_EQ(admission_annotations(
                PolicyApi::VerticalPodAutoscaler, "v", {"a", "b"},
                {{.index = 0, .requests = {"cpu"}}, {.index = 1, .requests = {"memory"}}})[0]
                .second,
            "Pod resources updated by v: container 0: cpu request; container 1: memory request");
  EXPECT_TRUE(admission_annotations(PolicyApi::VerticalScalingPolicy, "p", {"app"},
                                    {{.index = 0, .requests = {"cpu"}}})
                  .empty());
}

TEST(PodAnnotations, InPlaceMarkerAsVpasUpdaterSetsIt) {
  EXPECT_EQ(in_place_annotations(PolicyApi::VerticalPodAutoscaler),
            (std::vector<Annotation>{{"vpaInPlaceUpdated", "true"}}));
  EXPECT_TRUE(in_place_annotations(PolicyApi::VerticalScalingPolicy).empty());
}

}  // namespace
}  // namespace tailor::policy
