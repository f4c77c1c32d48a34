#include "controller/app/startup_boosts.h"

#include <boost/json.hpp>

#include "controller/app/controller_metrics.h"
#include "kube/observe/log.h"

namespace tailor::controller {
namespace {

namespace bj = boost::json;

kube::ObjectReference pod_ref(const actuator::PodFacts& pod) {
  return kube::pod_reference(pod.namespace_(), pod.name, pod.uid);
}

std::string annotation_patch(const actuator::BoostRecord& record) {
  return bj::serialize(bj::object{
      {"metadata",
       bj::object{{"annotations", bj::object{{actuator::kStartupBoostAnnotation,
                                              actuator::format_boost_record(record)}}}}}});
}

std::string reverted_message(const std::vector<actuator::BoostedContainer>& targets) {
  std::string out = "Start-up CPU boost taken back in place:";
  for (const actuator::BoostedContainer& c : targets) {
    const kube::Quantity* cpu = kube::find_resource(c.requests, kube::kResourceCpu);
    out += " " + c.name + " cpu " + (cpu ? cpu->to_string() : "?");
  }
  return out;
}

}  // namespace

StartupBoosts::StartupBoosts(kube::RestClient& client, kube::EventRecorder& events)
    : client_(client), events_(events) {}

void StartupBoosts::tell_once(const actuator::PodFacts& pod, std::string_view type,
                              std::string_view reason, const std::string& message) {
  if (!told_.emplace(pod.uid, std::string(reason)).second) return;
  events_.event(pod_ref(pod), std::string(type), std::string(reason), message);
}

std::size_t StartupBoosts::pass(const std::vector<std::shared_ptr<const actuator::PodFacts>>& pods,
                                const Recommended& recommended, kube::TimePoint now) {
  std::size_t reverted = 0, boosted = 0;
  std::set<std::string> seen;
  for (const auto& pod : pods) {
    // A boost taken back long ago holds no record (only a skip still to be told does).
    if (pod->deleting || !pod->startup_boost) continue;
    seen.insert(pod->uid);
    const actuator::BoostRecord& record = *pod->startup_boost;
    if (!record.skipped.empty()) {
      tell_once(*pod, kube::kEventTypeWarning, actuator::kStartupBoostSkipped, record.skipped);
      continue;
    }
    if (actuator::revert_due(record, pod->status->ready_condition, pod->ready_since, now) &&
        revert(*pod, record, recommended(*pod), now)) {
      ++reverted;
    } else if (actuator::boost_active(record)) {
      ++boosted;
    }
  }
  std::erase_if(told_, [&](const auto& told) { return !seen.contains(told.first); });
  controller_metrics().set_boosted_pods(static_cast<double>(boosted));
  return reverted;
}

// The boosted containers set back to what they had before it; a refusal is told once and tried
// again next pass (never an eviction: a new pod would only be boosted again, as VPA's AEP says).
bool StartupBoosts::revert(const actuator::PodFacts& pod, actuator::BoostRecord record,
                           const std::map<std::string, RecommendedCpu>& recommended,
                           kube::TimePoint now) {
  const std::string where = pod.namespace_() + "/" + pod.name;
  std::vector<actuator::BoostedContainer> targets;
  for (const actuator::BoostedContainer& c : record.containers) {
    auto r = recommended.find(c.name);
    targets.push_back(r == recommended.end()
                          ? c
                          : actuator::at_recommendation(c, r->second.cpu, r->second.values));
  }
  try {
    client_.patch({kube::resources::kPods, pod.namespace_(), pod.name, "resize"},
                  kube::PatchType::StrategicMerge, actuator::revert_patch(targets));
  } catch (const std::exception& e) {
    controller_metrics().startup_boost_revert("failed");
    const auto* api = dynamic_cast<const kube::ApiError*>(&e);
    const std::string why = api ? api->status_message() : e.what();
    kube::log::error("start-up boost not taken back; tried again next pass",
                     {{"pod", where}, {"err", why}});
    tell_once(pod, kube::kEventTypeWarning, actuator::kStartupBoostRevertFailed,
              "Start-up CPU boost not taken back: " + why);
    return false;
  }
  controller_metrics().startup_boost_revert("reverted");
  record.reverted_at = now;
  try {
    client_.patch({kube::resources::kPods, pod.namespace_(), pod.name}, kube::PatchType::Merge,
                  annotation_patch(record));
  } catch (const std::exception& e) {
    // The next pass sends the same resize again (a no-op) and retries the mark.
    kube::log::error("start-up boost mark not written", {{"pod", where}, {"err", e.what()}});
  }
  events_.event(pod_ref(pod), std::string(kube::kEventTypeNormal),
                std::string(actuator::kStartupBoostReverted), reverted_message(targets));
  kube::log::info("start-up boost taken back", {{"pod", where}});
  return true;
}

}  // namespace tailor::controller
