#include "embedded/controllers/cron_schedule.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>
#include <vector>

namespace tailor::kube::embedded {
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

// Go's time.ParseDuration for what @every takes: "90s", "5m", "1h30m", "1.5h".
std::optional<seconds> parse_duration(std::string_view text) {
  static const std::map<std::string, double> kUnits = {{"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3},
                                                       {"s", 1},     {"m", 60},    {"h", 3600}};
  double total = 0;
  std::size_t i = 0;
  if (text.empty()) return std::nullopt;
  while (i < text.size()) {
    std::size_t num_end = i;
    while (num_end < text.size() &&
           (std::isdigit(static_cast<unsigned char>(text[num_end])) || text[num_end] == '.')) {
      ++num_end;
    }
    std::size_t unit_end = num_end;
    while (unit_end < text.size() && std::isalpha(static_cast<unsigned char>(text[unit_end]))) {
      ++unit_end;
    }
    auto unit = kUnits.find(std::string(text.substr(num_end, unit_end - num_end)));
    if (num_end == i || unit == kUnits.end()) return std::nullopt;
    total += std::stod(std::string(text.substr(i, num_end - i))) * unit->second;
    i = unit_end;
  }
  // robfig rounds an interval below a second up to one second, and drops fractions.
  return seconds(std::max<std::int64_t>(1, static_cast<std::int64_t>(total)));
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
  spec.erase(0, spec.find_first_not_of(" \t"));
  spec.erase(spec.find_last_not_of(" \t") + 1);
  if (spec.empty()) return fail("empty spec string");
  CronSchedule s;
  if (spec[0] == '@') {
    if (spec.starts_with("@every ")) {
      auto d = parse_duration(spec.substr(7));
      if (!d) return fail("failed to parse duration " + spec + ": invalid duration");
      s.every_ = *d;
      return s;
    }
    auto d = descriptor(spec);
    if (!d) return fail("unrecognized descriptor: " + spec);
    spec = *d;
  }
  std::vector<std::string> fields;
  for (const std::string& f : split(spec, ' ')) {
    if (!f.empty()) fields.push_back(f);
  }
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

std::optional<TimePoint> CronSchedule::next(TimePoint t) const {
  auto whole = floor<seconds>(t);
  if (every_) return TimePoint(whole + *every_);
  // From the next whole minute after t, day by day for five years.
  auto start = floor<minutes>(whole) + minutes(1);
  sys_days day = floor<days>(start);
  auto first_minute = duration_cast<minutes>(start - day).count();
  for (int i = 0; i < 5 * 366; ++i, day += days(1), first_minute = 0) {
    year_month_day ymd{day};
    if (!months_.test(static_cast<unsigned>(ymd.month())) ||
        !day_matches(static_cast<int>(static_cast<unsigned>(ymd.day())),
                     static_cast<int>(weekday{day}.c_encoding()))) {
      continue;
    }
    for (auto m = first_minute; m < 24 * 60; ++m) {
      if (hours_.test(static_cast<std::size_t>(m / 60)) &&
          minutes_.test(static_cast<std::size_t>(m % 60))) {
        return TimePoint(day + minutes(m));
      }
    }
  }
  return std::nullopt;
}

MissedSchedules missed_schedules(const CronSchedule& schedule, TimePoint earliest, TimePoint now) {
  MissedSchedules out;
  std::optional<TimePoint> t = schedule.next(earliest);
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

std::string scheduled_job_name(const std::string& cronjob, TimePoint scheduled) {
  return cronjob + "-" + std::to_string(floor<minutes>(scheduled).time_since_epoch().count());
}

}  // namespace tailor::kube::embedded
