#include "controller/app/oom_kills.h"

#include <algorithm>

namespace tailor::controller {

kube::TimePoint OomLedger::horizon(kube::TimePoint now) const {
  return std::max(now - options_.retention, dropped_);
}

void OomLedger::forget(kube::TimePoint now) {
  const kube::TimePoint cutoff = now - options_.retention;
  std::erase_if(kills_, [&](const Entry& e) { return e.kill.at <= cutoff; });
  while (kills_.size() > options_.max_kills) {
    dropped_ = std::max(dropped_, kills_.front().kill.at);
    kills_.pop_front();
  }
}

bool OomLedger::take(const OomKill& kill, kube::TimePoint now) {
  if (kill.at <= horizon(now)) return false;
  Entry* other = nullptr;
  for (Entry& e : kills_) {
    if (e.kill.pod_uid != kill.pod_uid || e.kill.container != kill.container) continue;
    if (e.kill.source == kill.source) {
      // The same lastState read again; agent kills are each a counter increment of their own.
      if (kill.source == OomSource::Status && e.kill.at == kill.at) return false;
      continue;
    }
    const auto apart = e.kill.at > kill.at ? e.kill.at - kill.at : kill.at - e.kill.at;
    if (!e.paired && apart <= options_.same_event && (!other || e.kill.at < other->kill.at)) {
      other = &e;  // the earliest one that fits: pairs follow the order the kills happened in
    }
  }
  if (other) other->paired = true;
  kills_.push_back({kill, other != nullptr});
  forget(now);
  return other == nullptr;
}

std::vector<OomKill> OomLedger::take_status_kills(const actuator::PodFacts& pod,
                                                  kube::TimePoint now) {
  std::vector<OomKill> out;
  for (const actuator::ContainerStatusFacts& s : pod.status->container_statuses) {
    if (!s.oom_killed_at) continue;
    OomKill kill{.pod_uid = pod.uid, .container = s.name, .at = *s.oom_killed_at};
    if (take(kill, now)) out.push_back(std::move(kill));
  }
  return out;
}

bool OomLedger::take_agent_kill(const OomKill& kill, kube::TimePoint now) {
  OomKill k = kill;
  k.source = OomSource::Agent;
  return take(k, now);
}

}  // namespace tailor::controller
