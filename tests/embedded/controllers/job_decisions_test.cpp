// The Job controller's decisions (upstream's NonIndexed Jobs): pods to start or stop, and when
// and why a Job ends.
#include "embedded/controllers/job_decisions.h"

#include <gtest/gtest.h>

namespace tailor::embedded {
namespace {

struct DeltaCase {
  const char* what;
  JobSpecView spec;
  JobPodCounts counts;
  std::int64_t delta;
};

TEST(JobDecisions, ActivePodsDelta) {
  const DeltaCase cases[] = {
      {"a new Job starts parallelism pods", {.parallelism = 3, .completions = 5}, {}, 3},
      {"capped by the completions missing",
       {.parallelism = 3, .completions = 5},
       {.active = 1, .succeeded = 3},
       1},
      {"running pods beyond what is missing stop",
       {.parallelism = 3, .completions = 5},
       {.active = 3, .succeeded = 4},
       -2},
      {"failed pods are replaced",
       {.parallelism = 2, .completions = 2},
       {.active = 1, .failed = 1},
       1},
      {"suspended: every pod stops",
       {.parallelism = 2, .completions = 2, .suspend = true},
       {.active = 2},
       -2},
      {"work queue: parallelism until a success", {.parallelism = 4}, {.active = 1}, 3},
      {"work queue: none start after a success",
       {.parallelism = 4},
       {.active = 2, .succeeded = 1},
       0},
      {"parallelism lowered", {.parallelism = 1, .completions = 10}, {.active = 3}, -2},
  };
  for (const DeltaCase& c : cases) {
    EXPECT_EQ(active_pods_delta(c.spec, c.counts), c.delta) << c.what;
  }
}

struct FinishCase {
  const char* what;
  JobSpecView spec;
  JobPodCounts counts;
  std::optional<std::int64_t> seconds_active;
  JobFinish finish;
};

TEST(JobDecisions, Finish) {
  const FinishCase cases[] = {
      {"running", {.completions = 2}, {.active = 1, .succeeded = 1}, 10, JobFinish::Running},
      {"completions reached", {.completions = 2}, {.succeeded = 2}, 10, JobFinish::Complete},
      {"backoffLimit is the failures allowed",
       {.completions = 1, .backoff_limit = 2},
       {.active = 1, .failed = 2},
       10,
       JobFinish::Running},
      {"one failure more fails the Job",
       {.completions = 1, .backoff_limit = 2},
       {.failed = 3},
       10,
       JobFinish::BackoffLimitExceeded},
      {"backoffLimit 0: the first failure",
       {.completions = 1, .backoff_limit = 0},
       {.failed = 1},
       10,
       JobFinish::BackoffLimitExceeded},
      {"failure wins over completions",
       {.completions = 1, .backoff_limit = 0},
       {.succeeded = 1, .failed = 1},
       10,
       JobFinish::BackoffLimitExceeded},
      {"deadline passed",
       {.completions = 1, .active_deadline_seconds = 30},
       {.active = 1},
       30,
       JobFinish::DeadlineExceeded},
      {"deadline not yet",
       {.completions = 1, .active_deadline_seconds = 30},
       {.active = 1},
       29,
       JobFinish::Running},
      {"deadline without a start time",
       {.completions = 1, .active_deadline_seconds = 30},
       {.active = 1},
       std::nullopt,
       JobFinish::Running},
      {"work queue: a success with others running",
       {},
       {.active = 1, .succeeded = 1},
       10,
       JobFinish::Running},
      {"work queue: a success and nothing running", {}, {.succeeded = 1}, 10, JobFinish::Complete},
  };
  for (const FinishCase& c : cases) {
    EXPECT_EQ(job_finish(c.spec, c.counts, c.seconds_active), c.finish) << c.what;
  }
}

TEST(JobDecisions, ConditionsWordedAsUpstream) {
  EXPECT_EQ(finish_condition(JobFinish::Complete).reason, "CompletionsReached");
  EXPECT_EQ(finish_condition(JobFinish::Complete).message,
            "Reached expected number of succeeded pods");
  EXPECT_EQ(finish_condition(JobFinish::BackoffLimitExceeded).message,
            "Job has reached the specified backoff limit");
  EXPECT_EQ(finish_condition(JobFinish::DeadlineExceeded).message,
            "Job was active longer than specified deadline");
}

TEST(JobDecisions, PodFailureBackoffDoublesUpToTenMinutes) {
  const std::pair<std::int64_t, std::int64_t> cases[] = {{0, 0},   {1, 10},  {2, 20},  {3, 40},
                                                         {6, 320}, {7, 600}, {30, 600}};
  for (const auto& [failures, seconds] : cases) {
    EXPECT_EQ(pod_failure_backoff(failures).count(), seconds) << failures;
  }
}

TEST(JobDecisions, IndexesToStart) {
  struct Case {
    const char* what;
    JobSpecView spec;
    std::set<std::int64_t> succeeded, running;
    std::vector<std::int64_t> start;
  };
  const Case cases[] = {
      {"lowest first, up to parallelism", {.parallelism = 2, .completions = 4}, {}, {}, {0, 1}},
      {"skips succeeded and running", {.parallelism = 2, .completions = 4}, {0}, {1}, {2}},
      {"a failed index is started again", {.parallelism = 3, .completions = 3}, {1}, {2}, {0}},
      {"all done", {.parallelism = 2, .completions = 2}, {0, 1}, {}, {}},
      {"parallelism full", {.parallelism = 1, .completions = 3}, {}, {2}, {}},
      {"suspended", {.parallelism = 2, .completions = 2, .suspend = true}, {}, {}, {}},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(indexes_to_start(c.spec, c.succeeded, c.running), c.start) << c.what;
  }
}

TEST(JobDecisions, CompletedIndexesText) {
  const std::pair<std::set<std::int64_t>, const char*> cases[] = {
      {{}, ""}, {{0}, "0"}, {{0, 1, 2}, "0-2"}, {{1, 3, 4, 5, 7}, "1,3-5,7"}};
  for (const auto& [set, text] : cases) {
    EXPECT_EQ(format_indexes(set), text);
    EXPECT_EQ(parse_indexes(text), set) << text;
  }
  EXPECT_EQ(parse_indexes("2,x,4-5"), (std::set<std::int64_t>{2, 4, 5}));
}

}  // namespace
}  // namespace tailor::embedded
