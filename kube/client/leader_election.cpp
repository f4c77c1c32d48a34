#include "kube/client/leader_election.h"

#include <cstdio>
#include <ctime>

namespace tailor::kube {
namespace {

int whole_seconds(std::chrono::milliseconds d) {
  return static_cast<int>(std::chrono::duration_cast<std::chrono::seconds>(d).count());
}

bool held_by_other_and_valid(const LeaseRecord& current, WallClock::time_point observed_since,
                             WallClock::time_point now, const std::string& identity) {
  if (current.holder_identity.empty() || current.holder_identity == identity) return false;
  return observed_since + std::chrono::seconds(current.lease_duration_seconds) > now;
}

}  // namespace

void validate(const LeaderElectionConfig& config) {
  auto fail = [](const std::string& what) { throw LeaderElectionConfigError(what); };
  if (config.lease_name.empty()) fail("leader election: lease name is empty");
  if (config.identity.empty()) fail("leader election: identity is empty");
  if (config.lease_duration < std::chrono::seconds(1)) {
    fail("leader election: leaseDuration must be at least 1s (it is written in whole seconds)");
  }
  if (config.renew_deadline.count() <= 0) fail("leader election: renewDeadline must be > 0");
  if (config.retry_period.count() <= 0) fail("leader election: retryPeriod must be > 0");
  if (config.lease_duration <= config.renew_deadline) {
    fail("leader election: leaseDuration must be greater than renewDeadline");
  }
  if (static_cast<double>(config.renew_deadline.count()) <=
      kLeaderElectionJitter * static_cast<double>(config.retry_period.count())) {
    fail("leader election: renewDeadline must be greater than retryPeriod*JitterFactor (1.2)");
  }
}

std::string format_micro_time(WallClock::time_point t) {
  auto micros = std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch());
  auto seconds = std::chrono::floor<std::chrono::seconds>(micros);
  std::time_t tt = static_cast<std::time_t>(seconds.count());
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char text[80];
  std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%06lldZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<long long>((micros - seconds).count()));
  return text;
}

LeaseDecision decide_lease(const std::optional<LeaseRecord>& current,
                           WallClock::time_point observed_since, WallClock::time_point now,
                           const LeaderElectionConfig& config) {
  LeaseRecord ours;
  ours.holder_identity = config.identity;
  ours.lease_duration_seconds = whole_seconds(config.lease_duration);
  ours.acquire_time = ours.renew_time = format_micro_time(now);
  if (!current) return {LeaseAction::Create, ours};
  if (held_by_other_and_valid(*current, observed_since, now, config.identity)) {
    return {LeaseAction::Wait, *current};
  }
  if (current->holder_identity == config.identity) {
    // Renewal: the same term goes on.
    ours.acquire_time = current->acquire_time;
    ours.lease_transitions = current->lease_transitions;
  } else {
    // Takeover of an expired or released lease: a new term.
    ours.lease_transitions = current->lease_transitions + 1;
  }
  return {LeaseAction::Update, ours};
}

LeaseRecord released_record(const LeaseRecord& held, WallClock::time_point now) {
  LeaseRecord released;
  released.lease_duration_seconds = 1;
  released.acquire_time = released.renew_time = format_micro_time(now);
  released.lease_transitions = held.lease_transitions;
  return released;
}

}  // namespace tailor::kube
