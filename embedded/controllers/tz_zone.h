// Private to controllers/: IANA time zones for CronJob spec.timeZone, read from the system's
// zoneinfo (Debian's tzdata, /usr/share/zoneinfo) as Go's time.LoadLocation reads them: the
// TZif file's transitions, then its footer's POSIX rule for times past them. GCC 12's
// libstdc++ has no std::chrono::tzdb.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "embedded/controllers/tz_posix_rule.h"

namespace tailor::embedded {

class TimeZone {
 public:
  // "UTC" (and "", as Go) without a file; otherwise the zoneinfo file, loaded once. nullptr
  // with *error set to Go's words ("unknown time zone Mars/Olympus") when there is none.
  static std::shared_ptr<const TimeZone> load(const std::string& name,
                                              std::string* error = nullptr);
  static std::shared_ptr<const TimeZone> utc();
  // A TZif file's contents (RFC 8536, versions 1 to 4); nullopt when malformed.
  static std::optional<TimeZone> from_tzif(std::string name, std::string_view bytes);

  const std::string& name() const { return name_; }
  // The offset at t and the interval it holds in.
  ZoneSpan lookup(std::chrono::sys_seconds t) const;
  // The instant of a local wall-clock time, choosing in a gap or an overlap as Go's time.Date
  // does: the offset in force at the wall time read as UTC, unless that names an instant
  // outside its own span, then the offset at that instant.
  std::chrono::sys_seconds resolve(std::chrono::local_seconds local) const;
  std::chrono::local_seconds to_local(std::chrono::sys_seconds t) const;

 private:
  std::string name_;
  std::vector<std::chrono::sys_seconds> transitions_;
  std::vector<std::chrono::seconds> offset_after_;  // per transition
  std::chrono::seconds initial_offset_{};           // before the first (time type 0)
  std::optional<PosixTzRule> rule_;                 // past the last transition
};

}  // namespace tailor::embedded
