#include "embedded/controllers/job_decisions.h"

#include <algorithm>

namespace tailor::embedded {

FinishCondition finish_condition(JobFinish finish) {
  switch (finish) {
    case JobFinish::Complete:
      return {"CompletionsReached", "Reached expected number of succeeded pods"};
    case JobFinish::BackoffLimitExceeded:
      return {"BackoffLimitExceeded", "Job has reached the specified backoff limit"};
    case JobFinish::DeadlineExceeded:
      return {"DeadlineExceeded", "Job was active longer than specified deadline"};
    case JobFinish::PodFailurePolicy:
      return {"PodFailurePolicy", ""};  // the message names the pod and the rule
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

std::chrono::seconds pod_failure_backoff(std::int64_t failures_since_success) {
  constexpr std::chrono::seconds kFirst(10), kMax(600);
  if (failures_since_success <= 0) return std::chrono::seconds(0);
  std::chrono::seconds delay = kFirst;
  for (std::int64_t i = 1; i < failures_since_success && delay < kMax; ++i) delay *= 2;
  return std::min(delay, kMax);
}

std::vector<std::int64_t> indexes_to_start(const JobSpecView& spec,
                                           const std::set<std::int64_t>& succeeded,
                                           const std::set<std::int64_t>& running) {
  std::vector<std::int64_t> out;
  if (spec.suspend || !spec.completions) return out;
  auto room = spec.parallelism - static_cast<std::int64_t>(running.size());
  for (std::int64_t i = 0; i < *spec.completions && static_cast<std::int64_t>(out.size()) < room;
       ++i) {
    if (!succeeded.contains(i) && !running.contains(i)) out.push_back(i);
  }
  return out;
}

std::string format_indexes(const std::set<std::int64_t>& indexes) {
  std::string out;
  for (auto it = indexes.begin(); it != indexes.end();) {
    std::int64_t first = *it, last = *it;
    while (++it != indexes.end() && *it == last + 1) last = *it;
    if (!out.empty()) out += ",";
    out += std::to_string(first);
    if (last > first) out += "-" + std::to_string(last);
  }
  return out;
}

std::set<std::int64_t> parse_indexes(std::string_view text) {
  std::set<std::int64_t> out;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find(',', start);
    if (end == std::string_view::npos) end = text.size();
    std::string part(text.substr(start, end - start));
    start = end + 1;
    try {
      std::size_t dash = part.find('-');
      std::int64_t first = std::stoll(part.substr(0, dash));
      std::int64_t last = dash == std::string::npos ? first : std::stoll(part.substr(dash + 1));
      for (std::int64_t i = first; i <= last && i - first < 1000000; ++i) out.insert(i);
    } catch (const std::exception&) {
      // Skipped: not written by this controller.
    }
  }
  return out;
}

}  // namespace tailor::embedded
