// The controller's side of the start-up CPU boost (actuator/startup_boost.h): each pass it takes
// back in place, through pods/{name}/resize, every boost whose pod is Ready and whose duration
// has passed (to the policy's recommendation of that moment, else the pre-boost values), and marks
// the pod's annotation reverted (so neither a restart nor a standby taking over sends it twice); it
// tells pods that started unboosted why, with an event. Only the leader's pass calls it.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "actuator/pod_facts.h"
#include "actuator/startup_boost.h"
#include "kube/client/events.h"
#include "kube/client/rest_client.h"

namespace tailor::controller {

struct RecommendedCpu {
  kube::Quantity cpu{};
  policy::ControlledValues values = policy::ControlledValues::RequestsAndLimits;
};

class StartupBoosts {
 public:
  StartupBoosts(kube::RestClient& client, kube::EventRecorder& events);

  // The CPU a pod's policy recommends now, by container (empty: none, or the policy's mode
  // does not size pods; the boost then goes back to the pre-boost values).
  using Recommended =
      std::function<std::map<std::string, RecommendedCpu>(const actuator::PodFacts&)>;

  // Returns the number of boosts taken back.
  std::size_t pass(const std::vector<std::shared_ptr<const actuator::PodFacts>>& pods,
                   const Recommended& recommended, kube::TimePoint now);

 private:
  bool revert(const actuator::PodFacts& pod, actuator::BoostRecord record,
              const std::map<std::string, RecommendedCpu>& recommended, kube::TimePoint now);
  void tell_once(const actuator::PodFacts& pod, std::string_view type, std::string_view reason,
                 const std::string& message);

  kube::RestClient& client_;
  kube::EventRecorder& events_;
  // (pod uid, reason) already told by this replica; pruned to the pods still there.
  std::set<std::pair<std::string, std::string>> told_;
};

}  // namespace tailor::controller
