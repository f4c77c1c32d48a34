// Private to controllers/: the Job controller's decisions as pure functions over counts — how
// many pods to start or stop, and whether (and why) the Job has finished — as upstream's
// job controller makes them for NonIndexed Jobs.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace tailor::embedded {

struct JobSpecView {
  std::int64_t parallelism = 1;
  std::optional<std::int64_t> completions{};  // unset: a work queue, done at the first success
  std::int64_t backoff_limit = 6;
  bool suspend = false;
  std::optional<std::int64_t> active_deadline_seconds{};
};

struct JobPodCounts {
  std::int64_t active = 0;  // pods neither finished nor terminating
  std::int64_t succeeded = 0;
  std::int64_t failed = 0;
};

// PodFailurePolicy: a failed pod matched a FailJob rule (pod_failure_policy).
enum class JobFinish {
  Running,
  Complete,
  BackoffLimitExceeded,
  DeadlineExceeded,
  PodFailurePolicy
};

// The Job's condition reason and message for a finish ("" for Running).
struct FinishCondition {
  std::string reason;
  std::string message;
};
FinishCondition finish_condition(JobFinish finish);

// Failed before Complete: a failure past backoffLimit, then the active deadline (seconds since
// status.startTime, when known), then the completions reached (or, without completions, a
// success with nothing left running).
JobFinish job_finish(const JobSpecView& spec, const JobPodCounts& counts,
                     std::optional<std::int64_t> seconds_active);

// Pods to create (> 0) or delete (< 0) for a running Job: parallelism capped by the completions
// still missing; none when suspended, or once a work queue had a success.
std::int64_t active_pods_delta(const JobSpecView& spec, const JobPodCounts& counts);

// How long to wait after the latest failure before starting pods again: 10 s doubled for each
// failure since the last success, at most 10 min (the job controller's pod failure back-off);
// zero without failures.
std::chrono::seconds pod_failure_backoff(std::int64_t failures_since_success);

// Indexed Jobs (completionMode Indexed): each index in [0, completions) must succeed once.
// The indexes to start now, lowest first: neither succeeded nor running, up to parallelism
// running in all (none when suspended).
std::vector<std::int64_t> indexes_to_start(const JobSpecView& spec,
                                           const std::set<std::int64_t>& succeeded,
                                           const std::set<std::int64_t>& running);
// status.completedIndexes: "1,3-5,7"; and back (malformed parts are skipped).
std::string format_indexes(const std::set<std::int64_t>& indexes);
std::set<std::int64_t> parse_indexes(std::string_view text);

}  // namespace tailor::embedded
