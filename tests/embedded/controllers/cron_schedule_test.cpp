// CronJob schedules as Kubernetes parses them (robfig/cron v3 ParseStandard; UTC, or the zone
// of a TZ= prefix) and the CronJob controller's decisions.
#include "embedded/controllers/cron_schedule.h"

#include <gtest/gtest.h>

namespace tailor::embedded {
namespace {

struct NextCase {
  const char* schedule;
  const char* after;
  const char* next;
};

// The schedule parses, and its next activation after `after` is `next`.
void expect_next(const NextCase& c) {
  std::string error;
  auto s = CronSchedule::parse(c.schedule, &error);
  ASSERT_TRUE(s) << c.schedule << ": " << error;
  auto next = s->next(kube::parse_rfc3339(c.after));
  ASSERT_TRUE(next) << c.schedule;
  EXPECT_EQ(kube::format_rfc3339(*next), c.next) << c.schedule << " after " << c.after;
}

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
      // robfig's Every: below a second is one second, fractions of a second dropped. Kubernetes
      // accepts "@every 0" (validation only parses) and runs it every second.
      {"@every 0", "2025-03-01T10:00:00Z", "2025-03-01T10:00:01Z"},
      {"@every 0s", "2025-03-01T10:00:00Z", "2025-03-01T10:00:01Z"},
      {"@every 500ms", "2025-03-01T10:00:00Z", "2025-03-01T10:00:01Z"},
      {"@every -5s", "2025-03-01T10:00:00Z", "2025-03-01T10:00:01Z"},
      {"@every 2.9s", "2025-03-01T10:00:00Z", "2025-03-01T10:00:02Z"},
      // A zone: the fields are its wall clock; @every ignores it.
      {"TZ=America/New_York 0 0 * * *", "2025-03-01T00:00:00Z", "2025-03-01T05:00:00Z"},
      {"CRON_TZ=Asia/Kolkata 0 9 * * *", "2025-03-01T00:00:00Z", "2025-03-01T03:30:00Z"},
      {"TZ=UTC 0 0 * * *", "2025-03-01T10:00:00Z", "2025-03-02T00:00:00Z"},
      {"TZ=Asia/Tokyo @every 1h", "2025-03-01T10:00:00Z", "2025-03-01T11:00:00Z"},
      {"TZ=Australia/Sydney @daily", "2025-03-01T10:00:00Z", "2025-03-01T13:00:00Z"},
  };
  for (const NextCase& c : cases) expect_next(c);
}

TEST(CronSchedule, NeverActivates) {
  auto s = CronSchedule::parse("0 0 30 2 *");
  ASSERT_TRUE(s);
  EXPECT_FALSE(s->next(kube::parse_rfc3339("2025-01-01T00:00:00Z")));
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
      // @every quotes Go's time.ParseDuration.
      {"@every 1d",
       "failed to parse duration @every 1d: time: unknown unit \"d\" in duration "
       "\"1d\""},
      {"@every 5", "failed to parse duration @every 5: time: missing unit in duration \"5\""},
      {"@every x", "failed to parse duration @every x: time: invalid duration \"x\""},
      {"@every ", "failed to parse duration @every : time: invalid duration \"\""},
      {"@every  5s", "failed to parse duration @every  5s: time: invalid duration \" 5s\""},
      {" @daily", "expected exactly 5 fields, found 1: [@daily]"},
      {"TZ=Mars/Olympus * * * * *",
       "provided bad location Mars/Olympus: unknown time zone Mars/Olympus"},
      {"TZ=UTC", "invalid schedule format: runtime error: slice bounds out of range [3:-1]"},
      {"CRON_TZ=UTC", "invalid schedule format: runtime error: slice bounds out of range [8:-1]"},
  };
  for (const BadCase& c : cases) {
    std::string error;
    EXPECT_FALSE(CronSchedule::parse(c.schedule, &error)) << c.schedule;
    EXPECT_EQ(error, c.error) << c.schedule;
  }
}

// Daylight saving on the zone's wall clock, as robfig/cron v3 (which Kubernetes uses) walks it:
// hours advance as elapsed time, so a wall time the clocks skip is not run that day, and one they
// repeat is run at both instants. Past 2037 the zoneinfo file's POSIX rule gives the changes.
TEST(CronSchedule, DaylightSavingAsRobfig) {
  const NextCase cases[] = {
      // America/New_York springs forward 2025-03-09 02:00 EST -> 03:00 EDT: no 02:30 that day.
      {"TZ=America/New_York 30 2 * * *", "2025-03-08T06:00:00Z", "2025-03-08T07:30:00Z"},
      {"TZ=America/New_York 30 2 * * *", "2025-03-08T07:30:00Z", "2025-03-10T06:30:00Z"},
      {"TZ=America/New_York 30 3 * * *", "2025-03-08T12:00:00Z", "2025-03-09T07:30:00Z"},
      {"TZ=America/New_York 30 1 * * *", "2025-03-08T12:00:00Z", "2025-03-09T06:30:00Z"},
      // Falls back 2025-11-02 02:00 EDT -> 01:00 EST: 01:30 comes twice.
      {"TZ=America/New_York 30 1 * * *", "2025-11-01T12:00:00Z", "2025-11-02T05:30:00Z"},
      {"TZ=America/New_York 30 1 * * *", "2025-11-02T05:30:00Z", "2025-11-02T06:30:00Z"},
      {"TZ=America/New_York 30 1 * * *", "2025-11-02T06:30:00Z", "2025-11-03T06:30:00Z"},
      {"TZ=America/New_York 0 12 * * *", "2025-11-02T12:00:00Z", "2025-11-02T17:00:00Z"},
      // 2040 (past the file's transitions): springs forward March 11.
      {"TZ=America/New_York 30 2 * * *", "2040-03-10T12:00:00Z", "2040-03-12T06:30:00Z"},
      {"TZ=America/New_York 0 12 1 7 *", "2040-01-01T00:00:00Z", "2040-07-01T16:00:00Z"},
      // The southern hemisphere: Sydney is on daylight time (+11) in January.
      {"TZ=Australia/Sydney 0 12 * * *", "2040-01-15T00:00:00Z", "2040-01-15T01:00:00Z"},
      {"TZ=Australia/Sydney 0 12 * * *", "2040-07-15T00:00:00Z", "2040-07-15T02:00:00Z"},
  };
  for (const NextCase& c : cases) expect_next(c);
}

TEST(CronSchedule, TimeZoneBecomesTheSchedulesPrefix) {
  const std::string zone = "America/New_York", unknown = "Mars/Olympus";
  EXPECT_EQ(schedule_in_zone("0 * * * *", nullptr), "0 * * * *");
  EXPECT_EQ(schedule_in_zone("0 * * * *", &zone), "TZ=America/New_York 0 * * * *");
  EXPECT_EQ(schedule_in_zone("CRON_TZ=UTC 0 * * * *", &zone), "CRON_TZ=UTC 0 * * * *");
  EXPECT_EQ(schedule_in_zone("0 * * * *", &unknown), "0 * * * *");
}

TEST(CronSchedule, ScheduledTimestampOnTheZonesClock) {
  kube::TimePoint t = kube::parse_rfc3339("2025-03-10T06:30:00Z");
  EXPECT_EQ(format_rfc3339_in(t, *TimeZone::utc()), "2025-03-10T06:30:00Z");
  EXPECT_EQ(format_rfc3339_in(t, *TimeZone::load("America/New_York")), "2025-03-10T02:30:00-04:00");
  EXPECT_EQ(format_rfc3339_in(t, *TimeZone::load("Asia/Kolkata")), "2025-03-10T12:00:00+05:30");
  EXPECT_EQ(format_rfc3339_in(t, *TimeZone::load("Europe/London")), "2025-03-10T06:30:00Z");
}

TEST(CronSchedule, MissedActivationsSinceTheLast) {
  auto s = *CronSchedule::parse("*/10 * * * *");
  kube::TimePoint earliest = kube::parse_rfc3339("2025-03-01T10:00:00Z");
  MissedSchedules none = missed_schedules(s, earliest, kube::parse_rfc3339("2025-03-01T10:09:59Z"));
  EXPECT_FALSE(none.most_recent);
  EXPECT_EQ(none.count, 0);
  MissedSchedules one = missed_schedules(s, earliest, kube::parse_rfc3339("2025-03-01T10:10:00Z"));
  EXPECT_EQ(kube::format_rfc3339(*one.most_recent), "2025-03-01T10:10:00Z");
  EXPECT_EQ(one.count, 1);
  MissedSchedules three =
      missed_schedules(s, earliest, kube::parse_rfc3339("2025-03-01T10:35:00Z"));
  EXPECT_EQ(kube::format_rfc3339(*three.most_recent), "2025-03-01T10:30:00Z");
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
  EXPECT_EQ(scheduled_job_name("backup", kube::parse_rfc3339("2025-03-01T10:10:00Z")),
            "backup-29013730");
}

}  // namespace
}  // namespace tailor::embedded
