// Start-up CPU boost (VPA's startupBoost, AEP-7862), as pure decisions: which CPU a new pod's
// containers get at creation, what the pod carries to remember it (an annotation, so that a
// controller restart loses nothing), and when the boost is taken back in place.
//
// The boost is computed from the requests the admission plan already set (the recommendation,
// else the pod's own), so it reverts to what the pod would have had without it. The limit keeps
// the ratio it had to the request, so Guaranteed stays Guaranteed (request == limit) and a
// container without a CPU limit stays unlimited; under RequestsOnly the limit stays and the
// request is kept just below it. A container with no CPU request nor limit is not boosted
// (adding a request would change the pod's QoS class).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kube/model/pod.h"
#include "kube/model/time.h"
#include "policy/effective.h"

namespace tailor::actuator {

inline constexpr std::string_view kStartupBoostAnnotation = "autoscaling.tailor.dev/startup-boost";
// Event reasons on the pod.
inline constexpr std::string_view kStartupBoostSkipped = "StartupBoostSkipped";
inline constexpr std::string_view kStartupBoostReverted = "StartupBoostReverted";
inline constexpr std::string_view kStartupBoostRevertFailed = "StartupBoostRevertFailed";

// The CPU a container runs with during its boost; nullopt when the boost would not raise it.
std::optional<kube::ResourceRequirements> boosted_cpu(const kube::ResourceRequirements& base,
                                                      const policy::CpuBoost& boost,
                                                      policy::ControlledValues values);

// One boosted container: its CPU before the boost (what the revert sets back) and how long the
// boost outlasts Ready.
struct BoostedContainer {
  std::string name{};
  kube::ResourceList requests{};  // cpu only
  kube::ResourceList limits{};    // cpu only; empty: no limit
  std::chrono::seconds duration{0};
  bool operator==(const BoostedContainer&) const = default;
};

// What the annotation keeps.
struct BoostRecord {
  kube::TimePoint boosted_at{};
  std::vector<BoostedContainer> containers{};
  std::optional<kube::TimePoint> reverted_at{};
  std::string skipped{};  // why the pod started unboosted ("" when boosted)
  bool operator==(const BoostRecord&) const = default;

  std::chrono::seconds longest_duration() const;
};

std::string format_boost_record(const BoostRecord& record);
// nullopt when the text is not a record (a hand-edited annotation is ignored, never acted on).
std::optional<BoostRecord> parse_boost_record(std::string_view text);

struct BoostPlan {
  // The pod's containers with their boosted resources (requests and limits, every resource).
  std::vector<std::pair<std::string, kube::ResourceRequirements>> boosted{};
  BoostRecord record{};  // containers empty and skipped empty: the policy asks for no boost
};

// `pod` carries the resources the admission plan set. `largest_allocatable` is the scheduler's
// view of the biggest node (empty: unknown): a boost no node could hold would leave the pod
// Pending, so the pod starts unboosted and `record.skipped` says why.
BoostPlan plan_startup_boost(const kube::Pod& pod, const policy::EffectivePolicy& policy,
                             const kube::ResourceList& largest_allocatable, kube::TimePoint now);

// The boost is taken back once the pod is Ready and the longest duration has passed since it
// became Ready (VPA: "after it goes to Ready"). A record already reverted or skipped is done.
bool revert_due(const BoostRecord& record, bool pod_ready,
                std::optional<kube::TimePoint> ready_since, kube::TimePoint now);

// Whether the boost still holds the pod's CPU (its usage must not reach the models, and the
// update rule must not resize it meanwhile).
bool boost_active(const BoostRecord& record);

// What a boosted container goes back to when its policy recommends `cpu` for it (VPA: the
// recommendation at that moment): the recommended request, the limit with the ratio it had
// before the boost (under RequestsOnly the limit stays and the request does not pass it).
// Containers without a recommendation go back to their pre-boost values.
BoostedContainer at_recommendation(const BoostedContainer& before, const kube::Quantity& cpu,
                                   policy::ControlledValues values);

// The strategic-merge body of pods/{name}/resize that sets these containers' CPU.
std::string revert_patch(const std::vector<BoostedContainer>& containers);

}  // namespace tailor::actuator
