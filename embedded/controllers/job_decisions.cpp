#include "embedded/controllers/job_decisions.h"

#include <algorithm>

namespace tailor::kube::embedded {

FinishCondition finish_condition(JobFinish finish) {
  switch (finish) {
    case JobFinish::Complete:
      return {"CompletionsReached", "Reached expected number of succeeded pods"};
    case JobFinish::BackoffLimitExceeded:
      return {"BackoffLimitExceeded", "Job has reached the specified backoff limit"};
    case JobFinish::DeadlineExceeded:
      return {"DeadlineExceeded", "Job was active longer than specified deadline"};
    case JobFinish::Running:
      break;
  }
  return {};
}

JobFinish job_finish(const JobSpecView& spec, const JobPodCounts& counts,
                     std::optional<std::int64_t> seconds_active) {
  if (counts.failed > spec.backoff_limit) return JobFinish::BackoffLimitExceeded;
  if (spec.active_deadline_seconds && seconds_active &&
      *seconds_active >= *spec.active_deadline_seconds) {
    return JobFinish::DeadlineExceeded;
  }
  if (spec.completions) {
    if (counts.succeeded >= *spec.completions) return JobFinish::Complete;
  } else if (counts.succeeded > 0 && counts.active == 0) {
    return JobFinish::Complete;
  }
  return JobFinish::Running;
}

std::int64_t active_pods_delta(const JobSpecView& spec, const JobPodCounts& counts) {
  std::int64_t wanted = spec.suspend ? 0 : spec.parallelism;
  if (spec.completions) {
    wanted = std::min(wanted, std::max<std::int64_t>(*spec.completions - counts.succeeded, 0));
  } else if (counts.succeeded > 0) {
    // A work queue: once one pod succeeded the others finish on their own, none start.
    wanted = std::min(wanted, counts.active);
  }
  return wanted - counts.active;
}

}  // namespace tailor::kube::embedded
