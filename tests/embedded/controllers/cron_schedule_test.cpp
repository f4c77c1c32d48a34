// CronJob schedules as Kubernetes parses them (robfig/cron ParseStandard, UTC) and the CronJob
// controller's decisions.
#include "embedded/controllers/cron_schedule.h"

#include <gtest/gtest.h>

namespace tailor::kube::embedded {
namespace {

struct NextCase {
  const char* schedule;
  const char* after;
  const char* next;
};

TEST(CronSchedule, NextActivation) {
  const NextCase cases[] = {
      {"* * * * *", "2025-03-01T10:15:30Z", "2025-03-01T10:16:00Z"},
      {"* * * * *", "2025-03-01T10:15:00Z", "2025-03-01T10:16:00Z"},
      {"*/15 * * * *", "2025-03-01T10:15:00Z", "2025-03-01T10:30:00Z"},
      {"5,35 9-17/4 * * *", "2025-03-01T13:36:00Z", "2025-03-01T17:05:00Z"},
      {"0 0 * * *", "2025-12-31T23:59:59Z", "2026-01-01T00:00:00Z"},
      {"@hourly", "2025-03-01T10:00:00Z", "2025-03-01T11:00:00Z"},
      {"@daily", "2025-03-01T10:00:00Z", "2025-03-02T00:00:00Z"},
      {"@midnight", "2025-03-01T10:00:00Z", "2025-03-02T00:00:00Z"},
      // 2025-03-01 is a Saturday: next Sunday midnight.
      {"@weekly", "2025-03-01T10:00:00Z", "2025-03-02T00:00:00Z"},
      {"@monthly", "2025-03-01T10:00:00Z", "2025-04-01T00:00:00Z"},
      {"@yearly", "2025-03-01T10:00:00Z", "2026-01-01T00:00:00Z"},
      {"@annually", "2025-03-01T10:00:00Z", "2026-01-01T00:00:00Z"},
      {"0 12 * JAN,jul MON", "2025-03-01T00:00:00Z", "2025-07-07T12:00:00Z"},
      {"30 6 * * mon-fri", "2025-03-01T00:00:00Z", "2025-03-03T06:30:00Z"},
      {"0 0 29 2 *", "2025-01-01T00:00:00Z", "2028-02-29T00:00:00Z"},
      // Day of month and day of week both restricted: either matches (the 15th, or a Monday).
      {"0 0 15 * 1", "2025-03-01T00:00:00Z", "2025-03-03T00:00:00Z"},
      // One of them a star: both must match.
      {"0 0 15 * *", "2025-03-01T00:00:00Z", "2025-03-15T00:00:00Z"},
      {"0 0 ? * 1", "2025-03-01T00:00:00Z", "2025-03-03T00:00:00Z"},
      {"@every 90s", "2025-03-01T10:00:00.500Z", "2025-03-01T10:01:30Z"},
      {"@every 1h30m", "2025-03-01T10:00:00Z", "2025-03-01T11:30:00Z"},
  };
  for (const NextCase& c : cases) {
    std::string error;
    auto s = CronSchedule::parse(c.schedule, &error);
    ASSERT_TRUE(s) << c.schedule << ": " << error;
    auto next = s->next(parse_rfc3339(c.after));
    ASSERT_TRUE(next) << c.schedule;
    EXPECT_EQ(format_rfc3339(*next), c.next) << c.schedule << " after " << c.after;
  }
}

TEST(CronSchedule, NeverActivates) {
  auto s = CronSchedule::parse("0 0 30 2 *");
  ASSERT_TRUE(s);
  EXPECT_FALSE(s->next(parse_rfc3339("2025-01-01T00:00:00Z")));
}

struct BadCase {
  const char* schedule;
  const char* error;
};

TEST(CronSchedule, RejectsWithRobfigsWords) {
  const BadCase cases[] = {
      {"", "empty spec string"},
      {"* * * *", "expected exactly 5 fields, found 4: [* * * *]"},
      {"* * * * * *", "expected exactly 5 fields, found 6: [* * * * * *]"},
      {"@fortnightly", "unrecognized descriptor: @fortnightly"},
      {"60 * * * *", "end of range (60) above maximum (59): 60"},
      {"* * 0 * *", "beginning of range (0) below minimum (1): 0"},
      {"5-1 * * * *", "beginning of range (5) beyond end of range (1): 5-1"},
      {"*/0 * * * *", "step of range should be a positive number: */0"},
      {"x * * * *", "failed to parse int from x: strconv.Atoi: parsing \"x\": invalid syntax"},
      {"* * * * 7", "end of range (7) above maximum (6): 7"},
  };
  for (const BadCase& c : cases) {
    std::string error;
    EXPECT_FALSE(CronSchedule::parse(c.schedule, &error)) << c.schedule;
    EXPECT_EQ(error, c.error) << c.schedule;
  }
}

TEST(CronSchedule, MissedActivationsSinceTheLast) {
  auto s = *CronSchedule::parse("*/10 * * * *");
  TimePoint earliest = parse_rfc3339("2025-03-01T10:00:00Z");
  MissedSchedules none = missed_schedules(s, earliest, parse_rfc3339("2025-03-01T10:09:59Z"));
  EXPECT_FALSE(none.most_recent);
  EXPECT_EQ(none.count, 0);
  MissedSchedules one = missed_schedules(s, earliest, parse_rfc3339("2025-03-01T10:10:00Z"));
  EXPECT_EQ(format_rfc3339(*one.most_recent), "2025-03-01T10:10:00Z");
  EXPECT_EQ(one.count, 1);
  MissedSchedules three = missed_schedules(s, earliest, parse_rfc3339("2025-03-01T10:35:00Z"));
  EXPECT_EQ(format_rfc3339(*three.most_recent), "2025-03-01T10:30:00Z");
  EXPECT_EQ(three.count, 3);
}

TEST(CronSchedule, ConcurrencyPolicy) {
  struct Case {
    const char* policy;
    std::size_t active;
    CronAction action;
  };
  const Case cases[] = {
      {"Allow", 0, CronAction::Create},   {"Allow", 2, CronAction::Create},
      {"Forbid", 0, CronAction::Create},  {"Forbid", 1, CronAction::SkipForbidden},
      {"Replace", 0, CronAction::Create}, {"Replace", 1, CronAction::ReplaceThenCreate},
      {"", 1, CronAction::Create},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(cron_action(parse_concurrency_policy(c.policy), c.active), c.action)
        << c.policy << " " << c.active;
  }
}

TEST(CronSchedule, JobNamedAfterTheActivationInMinutes) {
  EXPECT_EQ(scheduled_job_name("backup", parse_rfc3339("2025-03-01T10:10:00Z")), "backup-29013730");
}

}  // namespace
}  // namespace tailor::kube::embedded
