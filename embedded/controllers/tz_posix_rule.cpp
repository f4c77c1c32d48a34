#include "embedded/controllers/tz_posix_rule.h"

#include <algorithm>
#include <cctype>
#include <utility>
#include <vector>

namespace tailor::embedded {
namespace {

using namespace std::chrono;

// Reads the text left to right; every reader returns false when the text does not fit.
struct Reader {
  std::string_view s;

  bool done() const { return s.empty(); }
  bool take(char c) {
    if (s.empty() || s.front() != c) return false;
    s.remove_prefix(1);
    return true;
  }
  bool number(int& out, int max_digits = 3) {
    int digits = 0;
    out = 0;
    while (!s.empty() && std::isdigit(static_cast<unsigned char>(s.front())) &&
           digits < max_digits) {
      out = out * 10 + (s.front() - '0');
      s.remove_prefix(1);
      ++digits;
    }
    return digits > 0;
  }
  // A zone abbreviation: three or more letters, or anything between < and >.
  bool name() {
    if (take('<')) {
      std::size_t close = s.find('>');
      if (close == std::string_view::npos) return false;
      s.remove_prefix(close + 1);
      return true;
    }
    std::size_t n = 0;
    while (n < s.size() && std::isalpha(static_cast<unsigned char>(s[n]))) ++n;
    s.remove_prefix(n);
    return n >= 3;
  }
  // [+-]hh[:mm[:ss]], signed as written.
  bool clock(seconds& out) {
    int sign = take('-') ? -1 : (take('+'), 1);
    int h = 0, m = 0, sec = 0;
    if (!number(h)) return false;
    if (take(':') && !number(m, 2)) return false;
    if (take(':') && !number(sec, 2)) return false;
    out = sign * (hours(h) + minutes(m) + seconds(sec));
    return true;
  }
  bool change(PosixTzRule::Change& c) {
    using Kind = PosixTzRule::Change::Kind;
    if (take('M')) {
      c.kind = Kind::MonthWeekDay;
      if (!number(c.month, 2) || !take('.') || !number(c.week, 1) || !take('.') ||
          !number(c.day, 1)) {
        return false;
      }
      if (c.month < 1 || c.month > 12 || c.week < 1 || c.week > 5 || c.day > 6) return false;
    } else {
      c.kind = take('J') ? Kind::JulianSkippingLeap : Kind::Julian;
      if (!number(c.day)) return false;
    }
    c.time = hours(2);
    return !take('/') || clock(c.time);
  }
};

// The day a change falls on in a year.
sys_days change_day(const PosixTzRule::Change& c, int y) {
  using Kind = PosixTzRule::Change::Kind;
  year yr{y};
  sys_days jan1{yr / January / 1};
  switch (c.kind) {
    case Kind::JulianSkippingLeap:
      return jan1 + days(c.day - 1 + (yr.is_leap() && c.day >= 60 ? 1 : 0));
    case Kind::Julian:
      return jan1 + days(c.day);
    case Kind::MonthWeekDay:
      break;
  }
  sys_days first{yr / month(static_cast<unsigned>(c.month)) / 1};
  sys_days day = first + (weekday(static_cast<unsigned>(c.day)) - weekday(first));
  day += weeks(c.week - 1);
  // Week 5 means the last one: back a week when it fell into the next month.
  while (year_month_day(day).month() != month(static_cast<unsigned>(c.month))) day -= weeks(1);
  return day;
}

}  // namespace

std::optional<PosixTzRule> PosixTzRule::parse(std::string_view text) {
  Reader r{text};
  PosixTzRule rule;
  seconds west{};
  if (!r.name() || !r.clock(west)) return std::nullopt;
  rule.std_offset_ = -west;  // POSIX counts west of UTC as positive
  if (r.done()) return rule;
  if (!r.name()) return std::nullopt;
  rule.dst_offset_ = rule.std_offset_ + hours(1);
  if (!r.done() && r.s.front() != ',') {
    if (!r.clock(west)) return std::nullopt;
    rule.dst_offset_ = -west;
  }
  if (r.done()) {
    // No rule given: the United States' since 2007, as Go and glibc assume.
    rule.start_ = {Change::Kind::MonthWeekDay, 0, 2, 3};
    rule.end_ = {Change::Kind::MonthWeekDay, 0, 1, 11};
    return rule;
  }
  if (!r.take(',') || !r.change(rule.start_) || !r.take(',') || !r.change(rule.end_) || !r.done()) {
    return std::nullopt;
  }
  return rule;
}

ZoneSpan PosixTzRule::at(sys_seconds t) const {
  if (!dst_offset_) return {std_offset_};
  // The changes of the years around t, as UTC instants with the offset each brings.
  std::vector<std::pair<sys_seconds, seconds>> changes;
  int y = static_cast<int>(year_month_day(floor<days>(t)).year());
  for (int year = y - 1; year <= y + 1; ++year) {
    changes.emplace_back(sys_seconds(change_day(start_, year)) + start_.time - std_offset_,
                         *dst_offset_);
    changes.emplace_back(sys_seconds(change_day(end_, year)) + end_.time - *dst_offset_,
                         std_offset_);
  }
  std::sort(changes.begin(), changes.end());
  auto after = std::upper_bound(changes.begin(), changes.end(), t,
                                [](sys_seconds v, const auto& c) { return v < c.first; });
  // t is within the year y, so at least the previous year's changes are before it.
  const auto& in_force = *(after - 1);
  return {in_force.second, in_force.first,
          after == changes.end() ? sys_seconds::max() : after->first};
}

}  // namespace tailor::embedded
