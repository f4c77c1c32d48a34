#include "embedded/controllers/cron_schedule.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <map>
#include <vector>

#include "kube/observe/duration.h"

namespace tailor::embedded {
namespace {

using namespace std::chrono;

struct Bounds {
  int min, max;
  const std::map<std::string, int>* names;
};

const std::map<std::string, int> kMonths = {{"jan", 1}, {"feb", 2},  {"mar", 3},  {"apr", 4},
                                            {"may", 5}, {"jun", 6},  {"jul", 7},  {"aug", 8},
                                            {"sep", 9}, {"oct", 10}, {"nov", 11}, {"dec", 12}};
const std::map<std::string, int> kWeekdays = {{"sun", 0}, {"mon", 1}, {"tue", 2}, {"wed", 3},
                                              {"thu", 4}, {"fri", 5}, {"sat", 6}};

std::vector<std::string> split(std::string_view s, char by) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == by) {
      out.emplace_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  return out;
}

// A number or (for months and weekdays) a name; throws the reason it is not.
int value_of(const std::string& text, const Bounds& b) {
  std::string lower = text;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (b.names) {
    if (auto it = b.names->find(lower); it != b.names->end()) return it->second;
  }
  int v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || v < 0) {
    throw std::invalid_argument("failed to parse int from " + text + ": strconv.Atoi: parsing \"" +
                                text + "\": invalid syntax");
  }
  return v;
}

// One comma-separated part: "*", "?", "5", "1-5", "*/15", "10-50/10", "3/2". Returns whether it
// counts as a star (robfig's starBit: "*" or "?" without a step above 1).
template <std::size_t N>
bool parse_range(const std::string& part, const Bounds& b, std::bitset<N>& bits) {
  std::vector<std::string> range_and_step = split(part, '/');
  if (range_and_step.size() > 2) throw std::invalid_argument("too many slashes: " + part);
  std::vector<std::string> low_high = split(range_and_step[0], '-');
  if (low_high.size() > 2) throw std::invalid_argument("too many hyphens: " + part);
  bool star = low_high[0] == "*" || low_high[0] == "?";
  int start = star ? b.min : value_of(low_high[0], b);
  int end = star ? b.max : low_high.size() == 2 ? value_of(low_high[1], b) : start;
  if (star && low_high.size() == 2) throw std::invalid_argument("too many hyphens: " + part);
  int step = 1;
  if (range_and_step.size() == 2) {
    step = value_of(range_and_step[1], {0, 0, nullptr});
    if (step <= 0)
      throw std::invalid_argument("step of range should be a positive number: " + part);
    if (low_high.size() == 1 && !star) end = b.max;
    if (step > 1) star = false;
  }
  if (start < b.min) {
    throw std::invalid_argument("beginning of range (" + std::to_string(start) +
                                ") below minimum (" + std::to_string(b.min) + "): " + part);
  }
  if (end > b.max) {
    throw std::invalid_argument("end of range (" + std::to_string(end) + ") above maximum (" +
                                std::to_string(b.max) + "): " + part);
  }
  if (start > end) {
    throw std::invalid_argument("beginning of range (" + std::to_string(start) +
                                ") beyond end of range (" + std::to_string(end) + "): " + part);
  }
  for (int v = start; v <= end; v += step) bits.set(static_cast<std::size_t>(v));
  return star;
}

template <std::size_t N>
bool parse_field(const std::string& field, const Bounds& b, std::bitset<N>& bits) {
  bool star = false;
  for (const std::string& part : split(field, ',')) star = parse_range(part, b, bits) || star;
  return star;
}

// robfig quotes Go's time.ParseDuration error; kube::parse_duration tells the same reasons in
// its own words ("invalid duration \"1d\": unknown unit \"d\"").
std::string go_duration_error(const std::string& text, const std::string& ours) {
  std::string quoted = "\"" + text + "\"";
  std::size_t at = ours.find(quoted + ": ");
  std::string why = at == std::string::npos ? "" : ours.substr(at + quoted.size() + 2);
  if (why == "missing unit") return "time: missing unit in duration " + quoted;
  if (why.starts_with("unknown unit ")) return "time: " + why + " in duration " + quoted;
  return "time: invalid duration " + quoted;
}

// robfig's Every: below a second counts as one second ("@every 0" included), fractions of a
// second are dropped.
std::optional<seconds> every_interval(const std::string& text, std::string* error) {
  try {
    kube::Duration d = kube::parse_duration(text);
    return d < 1s ? 1s : duration_cast<seconds>(d);
  } catch (const std::invalid_argument& e) {
    *error = go_duration_error(text, e.what());
    return std::nullopt;
  }
}

// Go's strings.Fields.
std::vector<std::string> fields_of(std::string_view s) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    std::size_t start = i;
    while (i < s.size() && !std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    if (i > start) out.emplace_back(s.substr(start, i - start));
  }
  return out;
}

std::optional<std::string> descriptor(std::string_view text) {
  static const std::map<std::string, std::string, std::less<>> kDescriptors = {
      {"@yearly", "0 0 1 1 *"}, {"@annually", "0 0 1 1 *"}, {"@monthly", "0 0 1 * *"},
      {"@weekly", "0 0 * * 0"}, {"@daily", "0 0 * * *"},    {"@midnight", "0 0 * * *"},
      {"@hourly", "0 * * * *"}};
  auto it = kDescriptors.find(text);
  if (it == kDescriptors.end()) return std::nullopt;
  return it->second;
}

}  // namespace

std::optional<CronSchedule> CronSchedule::parse(std::string_view text, std::string* error) {
  auto fail = [&](const std::string& why) -> std::optional<CronSchedule> {
    if (error) *error = why;
    return std::nullopt;
  };
  std::string spec(text);
  if (spec.empty()) return fail("empty spec string");
  CronSchedule s;
  if (spec.starts_with("TZ=") || spec.starts_with("CRON_TZ=")) {
    std::size_t eq = spec.find('='), space = spec.find(' ');
    if (space == std::string::npos) {
      // robfig slices up to the space it assumes; Kubernetes recovers the panic.
      return fail("invalid schedule format: runtime error: slice bounds out of range [" +
                  std::to_string(eq + 1) + ":-1]");
    }
    std::string name = spec.substr(eq + 1, space - eq - 1), why;
    s.zone_ = TimeZone::load(name, &why);
    if (!s.zone_) return fail("provided bad location " + name + ": " + why);
    spec = spec.substr(space);
    spec.erase(0, spec.find_first_not_of(" \t\n\v\f\r"));
    spec.erase(spec.find_last_not_of(" \t\n\v\f\r") + 1);
  }
  if (spec.starts_with("@")) {
    if (spec.starts_with("@every ")) {
      std::string why;
      s.every_ = every_interval(spec.substr(7), &why);
      if (!s.every_) return fail("failed to parse duration " + spec + ": " + why);
      return s;
    }
    auto d = descriptor(spec);
    if (!d) return fail("unrecognized descriptor: " + spec);
    spec = *d;
  }
  std::vector<std::string> fields = fields_of(spec);
  if (fields.size() != 5) {
    std::string listed;
    for (const std::string& f : fields) listed += (listed.empty() ? "" : " ") + f;
    return fail("expected exactly 5 fields, found " + std::to_string(fields.size()) + ": [" +
                listed + "]");
  }
  try {
    parse_field(fields[0], {0, 59, nullptr}, s.minutes_);
    parse_field(fields[1], {0, 23, nullptr}, s.hours_);
    s.days_star_ = parse_field(fields[2], {1, 31, nullptr}, s.days_);
    parse_field(fields[3], {1, 12, &kMonths}, s.months_);
    s.weekdays_star_ = parse_field(fields[4], {0, 6, &kWeekdays}, s.weekdays_);
  } catch (const std::invalid_argument& e) {
    return fail(e.what());
  }
  return s;
}

// Either restriction may match unless one of them is a star, as cron does.
bool CronSchedule::day_matches(int day_of_month, int weekday) const {
  bool dom = days_.test(static_cast<std::size_t>(day_of_month));
  bool dow = weekdays_.test(static_cast<std::size_t>(weekday));
  if (days_star_ || weekdays_star_) return dom && dow;
  return dom || dow;
}

// The instant t read on the zone's wall clock, moved as robfig moves a Go time.Time: by
// durations (Add) or by calendar fields normalized as time.Date does (AddDate).
struct CronSchedule::Wall {
  const TimeZone& zone;
  sys_seconds t{};
  year_month_day date{};
  unsigned hour = 0, minute = 0, second = 0, weekday = 0;

  void set(sys_seconds to) {
    t = to;
    local_seconds local = zone.to_local(t);
    local_days day = floor<days>(local);
    date = year_month_day(day);
    weekday = std::chrono::weekday(day).c_encoding();
    hh_mm_ss clock(local - day);
    hour = static_cast<unsigned>(clock.hours().count());
    minute = static_cast<unsigned>(clock.minutes().count());
    second = static_cast<unsigned>(clock.seconds().count());
  }
  unsigned month() const { return static_cast<unsigned>(date.month()); }
  unsigned day() const { return static_cast<unsigned>(date.day()); }
  // time.Date(year, month + months, day + add_days, h, m, s) in the zone.
  sys_seconds civil(int months, int add_days, unsigned h, unsigned m, unsigned s) const {
    year_month first = date.year() / date.month() + std::chrono::months(months);
    local_days d = local_days(first / 1) + days(static_cast<int>(day()) - 1 + add_days);
    return zone.resolve(d + hours(h) + minutes(m) + seconds(s));
  }
  void add_date(int months, int add_days) { set(civil(months, add_days, hour, minute, second)); }
};

bool CronSchedule::find_month(Wall& w, bool& truncated) const {
  while (!months_.test(w.month())) {
    if (!truncated) {
      truncated = true;
      w.set(w.civil(0, 1 - static_cast<int>(w.day()), 0, 0, 0));
    }
    w.add_date(1, 0);
    if (w.month() == 1) return false;
  }
  return true;
}

bool CronSchedule::find_day(Wall& w, bool& truncated) const {
  while (!day_matches(static_cast<int>(w.day()), static_cast<int>(w.weekday))) {
    if (!truncated) {
      truncated = true;
      w.set(w.civil(0, 0, 0, 0, 0));
    }
    w.add_date(0, 1);
    // A midnight the clocks skipped or repeated: back (or on) to the day's first hour.
    if (w.hour != 0) w.set(w.t + hours(w.hour > 12 ? 24 - w.hour : -static_cast<int>(w.hour)));
    if (w.day() == 1) return false;
  }
  return true;
}

bool CronSchedule::find_hour(Wall& w, bool& truncated) const {
  while (!hours_.test(w.hour)) {
    if (!truncated) {
      truncated = true;
      w.set(w.civil(0, 0, w.hour, 0, 0));
    }
    w.set(w.t + hours(1));  // an elapsed hour: a skipped wall hour is never seen
    if (w.hour == 0) return false;
  }
  return true;
}

bool CronSchedule::find_minute(Wall& w, bool& truncated) const {
  while (!minutes_.test(w.minute)) {
    if (!truncated) {
      truncated = true;
      w.set(floor<minutes>(w.t));
    }
    w.set(w.t + minutes(1));
    if (w.minute == 0) return false;
  }
  return true;
}

// Standard schedules fire at second 0 only. robfig steps a second at a time up to the next
// minute and starts again from the month; offsets are whole minutes, so one step does the same.
bool CronSchedule::find_second(Wall& w, bool& truncated) const {
  if (w.second == 0) return true;
  truncated = true;
  w.set(w.t + seconds(60 - w.second));
  return false;
}

std::optional<kube::TimePoint> CronSchedule::next(kube::TimePoint t) const {
  auto whole = floor<seconds>(t);
  if (every_) return kube::TimePoint(whole + *every_);
  Wall w{*zone_};
  w.set(whole + seconds(1));
  bool truncated = false;  // robfig's "added": the fields below the first changed one are zero
  const year year_limit = w.date.year() + years(5);
  while (w.date.year() <= year_limit) {
    if (find_month(w, truncated) && find_day(w, truncated) && find_hour(w, truncated) &&
        find_minute(w, truncated) && find_second(w, truncated)) {
      return kube::TimePoint(w.t);
    }
  }
  return std::nullopt;
}

MissedSchedules missed_schedules(const CronSchedule& schedule, kube::TimePoint earliest,
                                 kube::TimePoint now) {
  MissedSchedules out;
  std::optional<kube::TimePoint> t = schedule.next(earliest);
  // Bounded: a controller that was away for very long starts the latest one only.
  for (int i = 0; t && *t <= now && i < 100000; ++i) {
    out.most_recent = t;
    ++out.count;
    t = schedule.next(*t);
  }
  return out;
}

ConcurrencyPolicy parse_concurrency_policy(std::string_view text) {
  if (text == "Forbid") return ConcurrencyPolicy::Forbid;
  if (text == "Replace") return ConcurrencyPolicy::Replace;
  return ConcurrencyPolicy::Allow;
}

CronAction cron_action(ConcurrencyPolicy policy, std::size_t active) {
  if (active == 0 || policy == ConcurrencyPolicy::Allow) return CronAction::Create;
  return policy == ConcurrencyPolicy::Forbid ? CronAction::SkipForbidden
                                             : CronAction::ReplaceThenCreate;
}

std::string schedule_in_zone(const std::string& schedule, const std::string* time_zone) {
  if (schedule.find("TZ") != std::string::npos || !time_zone) return schedule;
  if (!TimeZone::load(*time_zone)) return schedule;
  return "TZ=" + *time_zone + " " + schedule;
}

std::string format_rfc3339_in(kube::TimePoint t, const TimeZone& zone) {
  auto whole = floor<seconds>(t);
  seconds offset = zone.lookup(whole).offset;
  std::string text = kube::format_rfc3339(kube::TimePoint(whole + offset));
  if (offset == seconds(0)) return text;
  auto abs_minutes = duration_cast<minutes>(offset < seconds(0) ? -offset : offset).count();
  char suffix[32];  // room for any two long longs, so the compiler can prove no truncation
  std::snprintf(suffix, sizeof suffix, "%c%02lld:%02lld", offset < seconds(0) ? '-' : '+',
                static_cast<long long>(abs_minutes / 60), static_cast<long long>(abs_minutes % 60));
  return text.substr(0, text.size() - 1) + suffix;
}

std::string scheduled_job_name(const std::string& cronjob, kube::TimePoint scheduled) {
  return cronjob + "-" + std::to_string(floor<minutes>(scheduled).time_since_epoch().count());
}

}  // namespace tailor::embedded
