// Leader election on a coordination.k8s.io/v1 Lease with client-go's semantics: the decision
// (create, renew, take over, or wait) is a pure function of the lease as read, when this
// candidate first saw that exact lease (its local clock, so clock skew between candidates does
// not matter), the time now, and the configuration.
#pragma once

#include <chrono>
#include <optional>
#include <stdexcept>
#include <string>

namespace tailor::kube {

// The Lease spec fields leader election reads and writes. Times are metav1.MicroTime text,
// kept as read so a renewal preserves acquireTime exactly.
struct LeaseRecord {
  std::string holder_identity;  // empty: nobody holds the lease (released)
  int lease_duration_seconds = 0;
  std::string acquire_time;
  std::string renew_time;
  int lease_transitions = 0;

  bool operator==(const LeaseRecord&) const = default;
};

struct LeaderElectionConfig {
  std::string lease_namespace = "kube-system";
  std::string lease_name;
  std::string identity;  // unique per candidate, e.g. the pod name
  // Defaults as client-go's (and kube-controller-manager's) leader election.
  std::chrono::milliseconds lease_duration{15000};
  std::chrono::milliseconds renew_deadline{10000};
  std::chrono::milliseconds retry_period{2000};
  // On stop, a leader releases the lease (holder cleared, duration 1 s) so another candidate
  // takes over at once instead of waiting for it to expire (client-go's ReleaseOnCancel).
  bool release_on_cancel = true;
};

// client-go's JitterFactor: attempts to acquire are spaced retry_period * [1, 2.2).
inline constexpr double kLeaderElectionJitter = 1.2;

class LeaderElectionConfigError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Throws LeaderElectionConfigError for a configuration client-go would reject.
void validate(const LeaderElectionConfig& config);

using WallClock = std::chrono::system_clock;

// metav1.MicroTime text: "2006-01-02T15:04:05.000000Z".
std::string format_micro_time(WallClock::time_point t);

enum class LeaseAction {
  Create,  // no lease: create it, held by us
  Update,  // write `record` with the resourceVersion read (renewal or takeover)
  Wait,    // held by another candidate and not expired
};

struct LeaseDecision {
  LeaseAction action;
  LeaseRecord record;  // what to write (Create/Update)
};

// current: the lease as just read (nullopt: it does not exist). observed_since: when this
// candidate first saw `current` unchanged. The lease is expired once observed_since plus its own
// leaseDurationSeconds has passed.
LeaseDecision decide_lease(const std::optional<LeaseRecord>& current,
                           WallClock::time_point observed_since, WallClock::time_point now,
                           const LeaderElectionConfig& config);

// What a leader writes when it steps down: no holder, a 1 s duration, transitions unchanged.
LeaseRecord released_record(const LeaseRecord& held, WallClock::time_point now);

}  // namespace tailor::kube
