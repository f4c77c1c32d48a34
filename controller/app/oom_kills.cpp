#include "controller/app/oom_kills.h"

#include <algorithm>
#include <boost/json.hpp>
#include <stdexcept>

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

std::string OomLedger::save() const {
  boost::json::array kills;
  for (const Entry& e : kills_) {
    kills.push_back(boost::json::object{{"pod", e.kill.pod_uid},
                                        {"container", e.kill.container},
                                        {"at", kube::format_rfc3339_micro(e.kill.at)},
                                        {"agent", e.kill.source == OomSource::Agent},
                                        {"paired", e.paired}});
  }
  return boost::json::serialize(boost::json::object{
      {"dropped", kube::format_rfc3339_micro(dropped_)}, {"kills", std::move(kills)}});
}

void OomLedger::restore(std::string_view text) {
  const boost::json::object saved = boost::json::parse(text).as_object();
  std::deque<Entry> kills;
  for (const boost::json::value& v : saved.at("kills").as_array()) {
    const boost::json::object& k = v.as_object();
    kills.push_back(
        {.kill = {.pod_uid = std::string(k.at("pod").as_string()),
                  .container = std::string(k.at("container").as_string()),
                  .at = kube::parse_rfc3339(k.at("at").as_string()),
                  .source = k.at("agent").as_bool() ? OomSource::Agent : OomSource::Status},
         .paired = k.at("paired").as_bool()});
  }
  dropped_ = kube::parse_rfc3339(saved.at("dropped").as_string());
  kills_ = std::move(kills);
}

}  // namespace tailor::controller
