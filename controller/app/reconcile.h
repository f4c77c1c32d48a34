// One pass of the controller as a pure function: from what the informers hold, the live usage
// models and the tracked resizes, decide each policy's status and which pods to resize or
// recreate now. The I/O (status patches, PATCH pods/{name}/resize, evictions) happens in
// controller.cpp, which feeds the answers back into the tracked state.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "actuator/caps.h"
#include "actuator/outcome.h"
#include "actuator/pod_decision.h"
#include "actuator/pod_facts.h"
#include "actuator/priority.h"
#include "actuator/refused_resize.h"
#include "actuator/selection.h"
#include "controller/app/hpa_view.h"
#include "controller/recommendation/model_registry.h"
#include "kube/model/pod.h"
#include "kube/model/time.h"
#include "policy/effective.h"
#include "policy/target_ref.h"
#include "policy/types.h"

namespace tailor::controller {

// A VerticalScalingPolicy or VerticalPodAutoscaler as read, validated.
struct PolicyObject {
  std::string key{};  // "namespace/name"
  policy::PolicyApi api = policy::PolicyApi::VerticalScalingPolicy;
  kube::ObjectMeta metadata{};
  policy::PolicyStatus status{};                       // as stored
  std::optional<policy::EffectivePolicy> effective{};  // set when valid
  std::vector<std::string> problems{};                 // decode or validation problems
  bool claimed = true;  // VPA objects another recommender owns: false
  std::string unclaimed_reason{};
};

struct PassInputs {
  std::vector<PolicyObject> policies{};
  std::vector<std::shared_ptr<const actuator::PodFacts>> pods{};
  std::shared_ptr<const policy::OwnerLookup> owners{};
  std::map<std::string, std::vector<actuator::LimitRangeItem>, std::less<>> limit_ranges{};  // ns
  kube::ResourceList largest_allocatable{};
  HorizontalScalers hpas{};  // by namespace
  kube::TimePoint now{};
  std::size_t update_budget = 0;  // from the global rate limit
  actuator::UpdateRule update_rule{};
  double eviction_tolerance = 0.5;
};

// What the controller remembers between passes (serialized into its state ConfigMap).
struct TrackedState {
  std::map<std::string, actuator::ResizeState> resizes{};  // by pod uid
  std::map<std::string, kube::TimePoint> last_change{};    // by pod uid
  std::map<std::string, std::string> quota_refusals{};     // by policy key: the API's message
  // Resizes the API refused as invalid, by pod uid: not sent again until the patch or the pod
  // changes (actuator/refused_resize.h).
  std::map<std::string, actuator::RefusedResize> refused_resizes{};
};

struct StatusUpdate {
  std::string key{};
  policy::PolicyApi api{};
  policy::PolicyStatus status{};
};

struct PodAction {
  enum class Kind { Resize, Recreate } kind = Kind::Resize;
  std::string ns{}, name{}, uid{};
  std::string policy{};            // key
  policy::PolicyApi policy_api{};  // which API the policy is (its events and annotations)
  std::string body{};              // Resize: the PATCH body of pods/{name}/resize
  std::string reason{};            // for events and logs
  kube::ResourceList totals{};     // Resize: the pod's requested totals after it
  // Resize: each changed container's requests after it, told to its model once the API accepts
  // the resize (ModelRegistry::applied), so the strategy's rule starts its timers.
  std::vector<std::pair<std::string, recommender::Resources>> applied{};
  std::int64_t generation = 0;  // the pod's metadata.generation the action was decided on
};

// The policy a pass assigned a pod to. A VerticalScalingPolicy and a VPA object of the same name
// share the key (and the models); the api says which of the two acts on the pod.
struct AssignedPolicy {
  std::string key{};
  policy::PolicyApi api = policy::PolicyApi::VerticalScalingPolicy;
  bool operator==(const AssignedPolicy&) const = default;
};

struct PassResult {
  std::vector<StatusUpdate> statuses{};  // only those that change
  std::vector<PodAction> actions{};      // in the order to act
  // pod "ns/name" -> its policy; hashed: 100,000 entries are rebuilt every pass.
  std::unordered_map<std::string, AssignedPolicy> policy_of_pod{};
  std::vector<std::pair<std::string, std::string>> skipped{};  // pod "ns/name", why not now
  std::map<std::string, std::string> hpa_conflicts{};  // policy key -> what Tailor leaves alone
};

// The capped recommendation of every controlled container the models know for this policy.
std::vector<policy::RecommendedContainerResources> policy_recommendations(
    const policy::EffectivePolicy& policy, const std::string& key,
    const recommendation::ModelRegistry& models, kube::TimePoint now);

// Those recommendations capped for each of the pod's containers (with the namespace's
// LimitRange); containers without one are left out.
std::vector<policy::RecommendedContainerResources> capped_for_pod(
    const std::vector<kube::Container>& containers, const policy::EffectivePolicy& policy,
    const std::vector<policy::RecommendedContainerResources>& recommendations,
    const actuator::LimitRangeItem* limit_range);

// The policy of that key and api among `policies` (a pod's AssignedPolicy, an action's
// policy); null when there is none.
const PolicyObject* find_policy(const std::vector<PolicyObject>& policies, const std::string& key,
                                policy::PolicyApi api);

// Decides statuses and actions; advances `state` (outcome timers, forgotten pods).
PassResult reconcile(const PassInputs& in, const recommendation::ModelRegistry& models,
                     TrackedState& state);

recommender::Seconds to_seconds(kube::TimePoint t);

}  // namespace tailor::controller
