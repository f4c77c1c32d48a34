// OOM kills reach tailor-controller two ways: the node agent's cgroup counter (a usage window
// with oom_kills > 0; it misses a kill of a container's main process, which restarts the
// container in a new cgroup) and the pod status (lastState.terminated.reason OOMKilled, read
// into actuator::PodFacts; it misses a kill of a child process, which does not restart the
// container). Each kill must reach the model once: a second bump of the same kill, from the
// raised request, would compound. This ledger remembers which kills were fed.
//
// The rule:
//  - a kill is keyed by pod uid, container and time: the status's finishedAt, or the end of
//    the agent's window that counted it;
//  - a status kill is the same as one fed before when the ledger holds a status kill with the
//    same key (the same lastState seen again on the next pass), or an agent kill of the same
//    pod uid and container whose window ended within `same_event` of the finishedAt and that
//    no other status kill has matched yet;
//  - an agent kill is the same as a status kill fed before under the same window rule (the
//    status can arrive first); agent kills never match each other: each counter increment is a
//    kill of its own;
//  - the ledger keeps kills for `retention` after they happened, and at most `max_kills`; a
//    kill at or before the ledger's horizon (now - retention, or the newest kill dropped for
//    room) is never fed, so forgetting a kill can never feed it again.
#pragma once

#include <chrono>
#include <cstddef>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "actuator/pod_facts.h"
#include "kube/model/time.h"

namespace tailor::controller {

enum class OomSource { Status, Agent };

struct OomKill {
  std::string pod_uid{};
  std::string container{};
  kube::TimePoint at{};
  OomSource source = OomSource::Status;
  auto operator<=>(const OomKill&) const = default;
};

struct OomLedgerOptions {
  // The agent's windows are 15 s by default (up to a minute when configured longer), and the
  // kill lies inside the window while finishedAt is a moment after it: a minute covers both.
  std::chrono::seconds same_event{60};
  // A pod's lastState keeps showing its last kill until the next one; a kill older than this is
  // left to the model's checkpoint (a controller that starts fresh does not feed old kills).
  std::chrono::seconds retention{std::chrono::hours(1)};
  std::size_t max_kills = 10000;
};

class OomLedger {
 public:
  explicit OomLedger(OomLedgerOptions options = {}) : options_(options) {}

  // The status kills of `pod` to feed to the model now: those not fed before and after the
  // horizon. Records every kill it reads, so the next pass sees them as fed.
  std::vector<OomKill> take_status_kills(const actuator::PodFacts& pod, kube::TimePoint now);
  // Whether an agent-counted kill is to be fed: false when a status kill already stood for it.
  // Records it.
  bool take_agent_kill(const OomKill& kill, kube::TimePoint now);

  std::size_t size() const { return kills_.size(); }

  // The ledger as JSON text, kept in the controller's state ConfigMap: a controller that starts
  // again must not feed the kills of the last hour a second time, from requests they raised.
  std::string save() const;
  // Replaces the ledger with a saved one; throws std::exception on a malformed text (and is
  // then left as it was).
  void restore(std::string_view text);

 private:
  struct Entry {
    OomKill kill;
    bool paired = false;  // matched a kill of the other source
  };
  // Whether `kill` is new; records it either way (paired with what it matched).
  bool take(const OomKill& kill, kube::TimePoint now);
  void forget(kube::TimePoint now);
  kube::TimePoint horizon(kube::TimePoint now) const;

  OomLedgerOptions options_;
  std::deque<Entry> kills_;    // in the order fed
  kube::TimePoint dropped_{};  // the newest kill dropped for room
};

}  // namespace tailor::controller
