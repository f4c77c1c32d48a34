// Private to controllers/: the POSIX TZ rule a TZif file ends with (RFC 8536 section 3.3, e.g.
// "EST5EDT,M3.2.0,M11.1.0"), which gives the offsets for times past the file's transitions.
#pragma once

#include <chrono>
#include <optional>
#include <string_view>

namespace tailor::embedded {

// An offset east of UTC and the UTC interval [start, end) in which it holds.
struct ZoneSpan {
  std::chrono::seconds offset{};
  std::chrono::sys_seconds start = std::chrono::sys_seconds::min();
  std::chrono::sys_seconds end = std::chrono::sys_seconds::max();
};

class PosixTzRule {
 public:
  // nullopt when the text is not a POSIX TZ string.
  static std::optional<PosixTzRule> parse(std::string_view text);
  ZoneSpan at(std::chrono::sys_seconds t) const;

  // When daylight time starts or ends in a year: Jn (1..365, February 29 never counted), n
  // (0..365) or Mm.w.d (weekday d of week w, 5 = the last, of month m), at a local time.
  struct Change {
    enum class Kind { JulianSkippingLeap, Julian, MonthWeekDay } kind = Kind::MonthWeekDay;
    int day = 0, week = 0, month = 0;
    std::chrono::seconds time = std::chrono::hours(2);
  };

 private:
  std::chrono::seconds std_offset_{};
  std::optional<std::chrono::seconds> dst_offset_{};  // unset: no daylight time
  Change start_{}, end_{};
};

}  // namespace tailor::embedded
