// Which pods a policy acts on: the pod's chain of controllers through owner references
// (Deployment -> ReplicaSet -> Pod, CronJob -> Job -> Pod, StatefulSet, DaemonSet, Job,
// ReplicaSet, any scalable custom controller), or a bare label selector; one policy per pod.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kube/model/meta.h"
#include "policy/effective.h"

namespace tailor::policy {

struct WorkloadRef {
  std::string api_version{};
  std::string kind{};
  std::string name{};
  std::string uid{};
  bool operator==(const WorkloadRef&) const = default;
};

// The controllers known to the caller (informer caches), by namespace and owner reference.
class OwnerLookup {
 public:
  virtual ~OwnerLookup() = default;
  // The owner's metadata, or nullptr when it is not known (not cached, or gone).
  virtual const kube::ObjectMeta* find(std::string_view namespace_,
                                       const kube::OwnerReference& owner) const = 0;
  // The controller of that kind and name in the namespace (identity and ownerReferences): a
  // null pointer when the caller watches that kind and there is none; nullopt when it does not
  // watch that kind (a custom scalable controller), so cannot tell.
  virtual std::optional<const kube::ObjectMeta*> named(std::string_view namespace_,
                                                       std::string_view kind,
                                                       std::string_view name) const {
    (void)namespace_, (void)kind, (void)name;
    return std::nullopt;
  }
};

// VPA's recommender's ConfigUnsupported message for a targetRef it does not act on
// (cluster_feeder.go getSelector, validateTargetRef), "" for one it does, for a policy without a
// targetRef, and when the lookup cannot tell:
// - a controller that does not exist: "Cannot read targetRef. Reason: Deployment default/web
//   does not exist";
// - one with a parent controller of a kind VPA knows (a ReplicaSet of a Deployment, a Job of a
//   CronJob): "The target apps/v1.ReplicaSet/web-5d9 has a parent controller but it should point
//   to a topmost well-known or scalable controller". Tailor then matches it no pods, as VPA.
std::string unsupported_target(const EffectivePolicy& policy, const OwnerLookup& lookup);

// The kinds VPA's controller fetcher knows without asking for a scale subresource.
bool well_known_controller(std::string_view kind);

// The controllers above the object, nearest first (e.g. [ReplicaSet web-5d9, Deployment web]).
// An owner the lookup does not know ends the chain but is listed (its reference is enough to
// match a targetRef); a uid seen twice ends it too (a cycle).
std::vector<WorkloadRef> controller_chain(const kube::ObjectMeta& object,
                                          const OwnerLookup& lookup);

// "apps/v1" -> "apps"; "v1" -> "".
std::string_view api_group(std::string_view api_version);

// Label selector semantics of metav1.LabelSelector (empty selector: everything).
bool matches(const LabelSelector& selector, const kube::StringMap& labels);

// Whether the policy selects the pod: same namespace, and either its selector matches the pod's
// labels or its targetRef names the top-most controller of the pod's chain (as VPA resolves
// targets: kind and name, and the API group when targetRef.apiVersion gives one).
bool selects(const EffectivePolicy& policy, const kube::ObjectMeta& pod,
             const std::vector<WorkloadRef>& chain);

struct PodRef {
  const kube::ObjectMeta* metadata = nullptr;
  std::vector<WorkloadRef> chain{};
};

// One policy per pod; the oldest policy (creationTimestamp, then namespace/name) wins.
struct Assignment {
  std::vector<std::optional<std::size_t>> policy_of_pod{};  // index into policies, per pod
  struct Overlap {
    std::size_t policy = 0;  // a policy that lost at least one pod
    std::size_t winner = 0;  // the policy that acts on that pod instead
    std::size_t pods = 0;    // how many pods it lost to that winner
  };
  std::vector<Overlap> overlaps{};
};
Assignment assign_policies(const std::vector<PodRef>& pods,
                           const std::vector<const EffectivePolicy*>& policies);

// The message for an OverlappingPolicy condition on the losing policy.
std::string overlap_message(const EffectivePolicy& winner, std::size_t pods);

// Whether Tailor acts on a VerticalPodAutoscaler object. VPA's own components act on objects
// without spec.recommenders (the "default" recommender) and on those naming it; Tailor takes
// objects naming one of `names`, and the unnamed ones only when no upstream VPA runs.
struct VpaClaim {
  bool ours = false;
  std::string reason{};  // why not, for logs and events
};
VpaClaim claim_vpa(const EffectivePolicy& vpa, const std::vector<std::string>& names,
                   bool upstream_vpa_running);

}  // namespace tailor::policy
