// Deployment rollout arithmetic as the deployment controller does it (pure functions).
#pragma once

#include <boost/json/fwd.hpp>
#include <cstdint>
#include <string>
#include <vector>

namespace tailor::embedded {

// An intstr.IntOrString (3 or "25%") resolved against total: percentages round up or down as
// asked. Throws std::invalid_argument naming `field` for anything else.
std::int64_t resolve_int_or_percent(const boost::json::value& value, std::int64_t total,
                                    bool round_up, const std::string& field);

struct RollingLimits {
  std::int64_t max_surge = 0;
  std::int64_t max_unavailable = 0;
};
// maxSurge rounds up, maxUnavailable down; both zero would deadlock, so unavailable becomes 1.
RollingLimits rolling_limits(const boost::json::value& max_surge,
                             const boost::json::value& max_unavailable, std::int64_t replicas);

// The pod-template-hash of a template (labels/name suffix): FNV-1a over its canonical JSON
// (keys sorted, so equal templates hash alike) and the collision count, printed with
// Kubernetes' "safe" alphabet (no vowels, no 0/1/3).
std::string pod_template_hash(const boost::json::value& pod_template, std::int64_t collision_count);
// k8s.io/apimachinery/pkg/util/rand.SafeEncodeString.
std::string safe_encode(const std::string& text);

struct ReplicaSetCounts {
  std::int64_t spec = 0;       // spec.replicas
  std::int64_t available = 0;  // status.availableReplicas
};

// One step of a RollingUpdate: the new ReplicaSet scales up first (within replicas + maxSurge);
// only when it cannot, old ones scale down — unavailable old pods first, then as far as
// replicas - maxUnavailable available pods allow. Old sets are given oldest first.
struct RolloutStep {
  std::int64_t new_replicas = 0;
  std::vector<std::int64_t> old_replicas;
};
RolloutStep rolling_update_step(std::int64_t replicas, RollingLimits limits,
                                ReplicaSetCounts new_set, const std::vector<ReplicaSetCounts>& old);

}  // namespace tailor::embedded
