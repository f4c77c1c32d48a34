// Private to controllers/: CronJob schedules as Kubernetes parses them (robfig/cron's
// ParseStandard): five fields (minute hour day-of-month month day-of-week; lists, ranges, steps,
// month and weekday names, ?) or a descriptor (@yearly @annually @monthly @weekly @daily
// @midnight @hourly, @every <duration>), evaluated in UTC; and the CronJob controller's
// decisions over them as pure functions.
#pragma once

#include <bitset>
#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "controller/kube/model/time.h"

namespace tailor::kube::embedded {

class CronSchedule {
 public:
  // nullopt with *error set (robfig's words, as the 422 quotes them) when it does not parse.
  static std::optional<CronSchedule> parse(std::string_view text, std::string* error = nullptr);
  // The first activation strictly after t, to the second; nullopt when none within five years
  // ("0 0 30 2 *").
  std::optional<TimePoint> next(TimePoint t) const;

 private:
  bool day_matches(int day_of_month, int weekday) const;

  std::bitset<60> minutes_;
  std::bitset<24> hours_;
  std::bitset<32> days_;     // 1..31
  std::bitset<13> months_;   // 1..12
  std::bitset<7> weekdays_;  // 0 = Sunday
  bool days_star_ = false, weekdays_star_ = false;
  std::optional<std::chrono::seconds> every_{};
};

// mostRecentScheduleTime: the latest activation in (earliest, now] and how many there were.
struct MissedSchedules {
  std::optional<TimePoint> most_recent{};
  std::int64_t count = 0;
};
MissedSchedules missed_schedules(const CronSchedule& schedule, TimePoint earliest, TimePoint now);

enum class ConcurrencyPolicy { Allow, Forbid, Replace };
ConcurrencyPolicy parse_concurrency_policy(std::string_view text);  // Allow when unknown

// What the CronJob controller does at a due activation with `active` jobs still running.
enum class CronAction { Create, SkipForbidden, ReplaceThenCreate };
CronAction cron_action(ConcurrencyPolicy policy, std::size_t active);

// A scheduled Job's name: "<cronjob>-<activation in minutes since the epoch>".
std::string scheduled_job_name(const std::string& cronjob, TimePoint scheduled);

}  // namespace tailor::kube::embedded
