#include "kube/model/time.h"

#include <cstdio>

namespace tailor::kube {
namespace {

using namespace std::chrono;

class Cursor {
 public:
  explicit Cursor(std::string_view text) : text_(text) {}
  int digits(int count, const char* what) {
    int value = 0;
    for (int i = 0; i < count; ++i) {
      if (pos_ >= text_.size() || text_[pos_] < '0' || text_[pos_] > '9') fail(what);
      value = value * 10 + (text_[pos_++] - '0');
    }
    return value;
  }
  void expect(char c, const char* what) {
    if (pos_ >= text_.size() || text_[pos_] != c) fail(what);
    ++pos_;
  }
  bool accept(char c) {
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool at_digit() const { return pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9'; }
  bool done() const { return pos_ == text_.size(); }
  [[noreturn]] void fail(const char* what) const {
    throw TimeError("invalid RFC 3339 time \"" + std::string(text_) + "\": " + what);
  }

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
};

nanoseconds fraction(Cursor& c) {
  if (!c.accept('.')) return nanoseconds(0);
  if (!c.at_digit()) c.fail("expected digits after '.'");
  std::int64_t nanos = 0;
  int count = 0;
  while (c.at_digit()) {
    int d = c.digits(1, "fraction");
    if (count++ < 9) nanos = nanos * 10 + d;  // finer than 1ns is truncated, as Go does
  }
  for (; count < 9; ++count) nanos *= 10;
  return nanoseconds(nanos);
}

seconds zone_offset(Cursor& c) {
  if (c.accept('Z')) return seconds(0);
  int sign = c.accept('+') ? 1 : (c.accept('-') ? -1 : 0);
  if (sign == 0) c.fail("expected 'Z' or a ±hh:mm offset");
  int hours = c.digits(2, "offset hours");
  c.expect(':', "expected ':' in the offset");
  int minutes = c.digits(2, "offset minutes");
  if (hours > 23 || minutes > 59) c.fail("offset out of range");
  return seconds(sign * (hours * 3600 + minutes * 60));
}

std::string format(TimePoint t, bool micro) {
  auto day = floor<days>(t);
  year_month_day ymd(day);
  hh_mm_ss<nanoseconds> clock(t - day);
  char buffer[40];
  int n = std::snprintf(buffer, sizeof buffer, "%04d-%02u-%02uT%02d:%02d:%02d",
                        static_cast<int>(ymd.year()), static_cast<unsigned>(ymd.month()),
                        static_cast<unsigned>(ymd.day()), static_cast<int>(clock.hours().count()),
                        static_cast<int>(clock.minutes().count()),
                        static_cast<int>(clock.seconds().count()));
  std::string out(buffer, n);
  if (micro) {
    n = std::snprintf(buffer, sizeof buffer, ".%06d",
                      static_cast<int>(duration_cast<microseconds>(clock.subseconds()).count()));
    out.append(buffer, n);
  }
  out += 'Z';
  return out;
}

}  // namespace

TimePoint parse_rfc3339(std::string_view text) {
  Cursor c(text);
  int y = c.digits(4, "expected a 4-digit year");
  c.expect('-', "expected '-' after the year");
  int mo = c.digits(2, "expected a 2-digit month");
  c.expect('-', "expected '-' after the month");
  int d = c.digits(2, "expected a 2-digit day");
  c.expect('T', "expected 'T' between date and time");
  int h = c.digits(2, "expected 2-digit hours");
  c.expect(':', "expected ':' after the hours");
  int mi = c.digits(2, "expected 2-digit minutes");
  c.expect(':', "expected ':' after the minutes");
  int s = c.digits(2, "expected 2-digit seconds");
  nanoseconds sub = fraction(c);
  seconds offset = zone_offset(c);
  if (!c.done()) c.fail("unexpected text after the time");
  year_month_day date{year(y), month(static_cast<unsigned>(mo)), day(static_cast<unsigned>(d))};
  if (!date.ok()) c.fail("no such date");
  if (h > 23 || mi > 59 || s > 59) c.fail("time of day out of range");
  return TimePoint(sys_days(date)) + hours(h) + minutes(mi) + seconds(s) + sub - offset;
}

std::optional<TimePoint> try_parse_rfc3339(std::string_view text) {
  try {
    return parse_rfc3339(text);
  } catch (const TimeError&) {
    return std::nullopt;
  }
}

std::string format_rfc3339(TimePoint t) { return format(floor<seconds>(t), false); }

std::string format_rfc3339_micro(TimePoint t) { return format(floor<microseconds>(t), true); }

}  // namespace tailor::kube
