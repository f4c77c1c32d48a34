// Private to controllers/: CronJob schedules as Kubernetes parses them (robfig/cron v3's
// ParseStandard): five fields (minute hour day-of-month month day-of-week; lists, ranges, steps,
// month and weekday names, ?) or a descriptor (@yearly @annually @monthly @weekly @daily
// @midnight @hourly, @every <duration>), after an optional "TZ=<zone> " / "CRON_TZ=<zone> "
// (how the controller passes spec.timeZone); evaluated on the zone's wall clock as robfig does,
// UTC without a zone. And the CronJob controller's decisions over them as pure functions.
#pragma once

#include <bitset>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "embedded/controllers/tz_zone.h"
#include "kube/model/time.h"

namespace tailor::embedded {

class CronSchedule {
 public:
  // nullopt with *error set (robfig's words, as the 422 quotes them) when it does not parse.
  static std::optional<CronSchedule> parse(std::string_view text, std::string* error = nullptr);
  // The first activation strictly after t, to the second; nullopt when none within five years
  // ("0 0 30 2 *"). Across daylight-saving changes as robfig: a wall time the clocks skip does
  // not run that day (02:30 on America/New_York's spring-forward day), one they repeat runs
  // twice (01:30 on the fall-back day). @every ignores the zone.
  std::optional<kube::TimePoint> next(kube::TimePoint t) const;
  // The zone the fields are read in (UTC without a TZ= prefix).
  const TimeZone& zone() const { return *zone_; }

 private:
  struct Wall;
  bool day_matches(int day_of_month, int weekday) const;
  // robfig's walk, one field at a time; false when the field wrapped (start again from the month).
  bool find_month(Wall& w, bool& truncated) const;
  bool find_day(Wall& w, bool& truncated) const;
  bool find_hour(Wall& w, bool& truncated) const;
  bool find_minute(Wall& w, bool& truncated) const;
  bool find_second(Wall& w, bool& truncated) const;

  std::bitset<60> minutes_;
  std::bitset<24> hours_;
  std::bitset<32> days_;     // 1..31
  std::bitset<13> months_;   // 1..12
  std::bitset<7> weekdays_;  // 0 = Sunday
  bool days_star_ = false, weekdays_star_ = false;
  std::optional<std::chrono::seconds> every_{};
  std::shared_ptr<const TimeZone> zone_ = TimeZone::utc();
};

// The schedule the CronJob controller parses (formatSchedule): "TZ=<timeZone> <schedule>" when
// spec.timeZone is set, the schedule as written when it has a TZ of its own or the zone is not
// known.
std::string schedule_in_zone(const std::string& schedule, const std::string* time_zone);

// The batch.kubernetes.io/cronjob-scheduled-timestamp annotation: RFC 3339 on the schedule's
// zone's wall clock ("2025-03-10T02:30:00-04:00"; "Z" for a zero offset, as Go prints it).
std::string format_rfc3339_in(kube::TimePoint t, const TimeZone& zone);

// mostRecentScheduleTime: the latest activation in (earliest, now] and how many there were.
struct MissedSchedules {
  std::optional<kube::TimePoint> most_recent{};
  std::int64_t count = 0;
};
MissedSchedules missed_schedules(const CronSchedule& schedule, kube::TimePoint earliest,
                                 kube::TimePoint now);

enum class ConcurrencyPolicy { Allow, Forbid, Replace };
ConcurrencyPolicy parse_concurrency_policy(std::string_view text);  // Allow when unknown

// What the CronJob controller does at a due activation with `active` jobs still running.
enum class CronAction { Create, SkipForbidden, ReplaceThenCreate };
CronAction cron_action(ConcurrencyPolicy policy, std::size_t active);

// A scheduled Job's name: "<cronjob>-<activation in minutes since the epoch>".
std::string scheduled_job_name(const std::string& cronjob, kube::TimePoint scheduled);

}  // namespace tailor::embedded
