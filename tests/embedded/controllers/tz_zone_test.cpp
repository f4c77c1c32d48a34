// Time zones from Debian's zoneinfo (TZif transitions, then the footer's POSIX rule), looked up
// and resolved as Go's time package does; spec.timeZone's validation in upstream's words.
#include "embedded/controllers/tz_zone.h"

#include <gtest/gtest.h>

#include "embedded/controllers/cronjob_validation.h"
#include "kube/model/time.h"

namespace tailor::embedded {
namespace {

using namespace std::chrono;

sys_seconds at(const char* rfc3339) { return floor<seconds>(kube::parse_rfc3339(rfc3339)); }
local_seconds wall(const char* rfc3339) { return local_seconds(at(rfc3339).time_since_epoch()); }

TEST(TimeZone, OffsetsFromTheFileAndPastIt) {
  auto ny = TimeZone::load("America/New_York");
  ASSERT_TRUE(ny);
  EXPECT_EQ(ny->lookup(at("2025-01-15T12:00:00Z")).offset, -hours(5));
  EXPECT_EQ(ny->lookup(at("2025-07-15T12:00:00Z")).offset, -hours(4));
  // The change instants bound the span.
  ZoneSpan summer = ny->lookup(at("2025-07-15T12:00:00Z"));
  EXPECT_EQ(summer.start, at("2025-03-09T07:00:00Z"));
  EXPECT_EQ(summer.end, at("2025-11-02T06:00:00Z"));
  // 2050 is past the transitions: the footer's EST5EDT,M3.2.0,M11.1.0.
  ZoneSpan later = ny->lookup(at("2050-07-15T12:00:00Z"));
  EXPECT_EQ(later.offset, -hours(4));
  EXPECT_EQ(later.start, at("2050-03-13T07:00:00Z"));
  EXPECT_EQ(later.end, at("2050-11-06T06:00:00Z"));
  EXPECT_EQ(ny->lookup(at("2050-12-15T12:00:00Z")).offset, -hours(5));
  // Dublin's rule has negative daylight time (IST-1GMT0,M10.5.0,M3.5.0/1): +1 in summer.
  auto dublin = TimeZone::load("Europe/Dublin");
  ASSERT_TRUE(dublin);
  EXPECT_EQ(dublin->lookup(at("2050-07-15T12:00:00Z")).offset, hours(1));
  EXPECT_EQ(dublin->lookup(at("2050-01-15T12:00:00Z")).offset, hours(0));
  auto kolkata = TimeZone::load("Asia/Kolkata");
  ASSERT_TRUE(kolkata);
  EXPECT_EQ(kolkata->lookup(at("2050-01-15T12:00:00Z")).offset, hours(5) + minutes(30));
  EXPECT_EQ(TimeZone::utc()->lookup(at("2025-07-15T12:00:00Z")).offset, seconds(0));
}

struct RuleCase {
  const char* rule;
  const char* at;
  seconds offset;
};

// The footer's POSIX TZ strings as zic writes them (RFC 8536 section 3.3 and its extensions).
TEST(PosixTzRule, OffsetsThroughTheYear) {
  const RuleCase cases[] = {
      {"EST5EDT,M3.2.0,M11.1.0", "2050-03-13T06:59:59Z", -hours(5)},
      {"EST5EDT,M3.2.0,M11.1.0", "2050-03-13T07:00:00Z", -hours(4)},
      {"EST5EDT,M3.2.0,M11.1.0", "2050-11-06T05:59:59Z", -hours(4)},
      {"EST5EDT,M3.2.0,M11.1.0", "2050-11-06T06:00:00Z", -hours(5)},
      // No rule after the names: the United States' rule.
      {"EST5EDT", "2050-07-01T00:00:00Z", -hours(4)},
      {"<+0330>-3:30", "2050-07-01T00:00:00Z", hours(3) + minutes(30)},
      {"<-03>3", "2050-07-01T00:00:00Z", -hours(3)},
      // Southern hemisphere: daylight time across the new year.
      {"AEST-10AEDT,M10.1.0,M4.1.0/3", "2050-01-01T00:00:00Z", hours(11)},
      {"AEST-10AEDT,M10.1.0,M4.1.0/3", "2050-07-01T00:00:00Z", hours(10)},
      // Julian days, and a change time past 24 hours (zic's extension).
      {"<+0330>-3:30<+0430>,J79/24,J263/24", "2050-06-01T00:00:00Z", hours(4) + minutes(30)},
      {"<-02>2<-01>,M3.5.0/-1,M10.5.0/0", "2050-06-01T00:00:00Z", -hours(1)},
      {"<-02>2<-01>,M3.5.0/-1,M10.5.0/0", "2050-12-01T00:00:00Z", -hours(2)},
      {"WGT3WGST,M3.5.0/-2,M10.5.0/-1", "2050-06-01T00:00:00Z", -hours(2)},
  };
  for (const RuleCase& c : cases) {
    auto rule = PosixTzRule::parse(c.rule);
    ASSERT_TRUE(rule) << c.rule;
    EXPECT_EQ(rule->at(at(c.at)).offset, c.offset) << c.rule << " at " << c.at;
  }
  for (const char* bad : {"", "E5", "EST", "EST5EDT,M3.2.0", "EST5EDT,M13.2.0,M11.1.0",
                          "EST5EDT,M3.6.0,M11.1.0", "<+03", "EST5EDT,M3.2.0,M11.1.0x"}) {
    EXPECT_FALSE(PosixTzRule::parse(bad)) << bad;
  }
}

// time.Date in a gap takes the offset after the change when the one before names an instant
// past it (02:30 on the spring-forward day is 01:30 EST); in an overlap, the first one.
TEST(TimeZone, ResolvesWallTimesAsGoDate) {
  auto ny = TimeZone::load("America/New_York");
  ASSERT_TRUE(ny);
  EXPECT_EQ(ny->resolve(wall("2025-03-09T02:30:00Z")), at("2025-03-09T06:30:00Z"));
  EXPECT_EQ(ny->resolve(wall("2025-03-09T03:30:00Z")), at("2025-03-09T07:30:00Z"));
  EXPECT_EQ(ny->resolve(wall("2025-11-02T01:30:00Z")), at("2025-11-02T05:30:00Z"));
  EXPECT_EQ(ny->resolve(wall("2025-11-02T02:30:00Z")), at("2025-11-02T07:30:00Z"));
  EXPECT_EQ(ny->to_local(at("2025-11-02T06:30:00Z")), wall("2025-11-02T01:30:00Z"));
}

TEST(TimeZone, MalformedFilesAreRefused) {
  EXPECT_FALSE(TimeZone::from_tzif("x", ""));
  EXPECT_FALSE(TimeZone::from_tzif("x", "TZif2"));
  EXPECT_FALSE(TimeZone::from_tzif("x", "# tzdb data for zone.tab\n"));
  // A version 1 header claiming 2^30 transitions, and none there.
  std::string header = std::string("TZif") + std::string(16, '\0') + std::string(12, '\0') +
                       std::string("\x40\0\0\0\0\0\0\x01\0\0\0\0", 12);
  EXPECT_FALSE(TimeZone::from_tzif("x", header));
  // The same header with its one time type and nothing else is a valid fixed zone.
  header.replace(32, 4, std::string(4, '\0'));
  auto fixed = TimeZone::from_tzif("x", header + std::string("\0\0\x0e\x10\0\0", 6));
  ASSERT_TRUE(fixed);
  EXPECT_EQ(fixed->lookup(at("2025-01-01T00:00:00Z")).offset, hours(1));
  std::string error;
  EXPECT_FALSE(TimeZone::load("zone.tab", &error));
  EXPECT_EQ(error, "malformed time zone information");
  EXPECT_FALSE(TimeZone::load("Mars/Olympus", &error));
  EXPECT_EQ(error, "unknown time zone Mars/Olympus");
}

struct ZoneCase {
  const char* zone;
  std::vector<std::string> problems;
};

// validateTimeZone's checks in order: empty, IANA naming, Local, time.LoadLocation.
TEST(TimeZone, ValidatedAsKubeApiserver) {
  const ZoneCase cases[] = {
      {"America/New_York", {}},
      {"UTC", {}},
      {"Etc/GMT+5", {}},
      {"America/Argentina/Buenos_Aires", {}},
      {"", {"timeZone must be nil or non-empty string"}},
      {"Mars/Olympus", {"unknown time zone Mars/Olympus"}},
      {"../etc/passwd", {"unknown time zone ../etc/passwd"}},
      {"America//New_York", {"unknown time zone America//New_York"}},
      {"America/-York", {"unknown time zone America/-York"}},
      {"America/New York", {"unknown time zone America/New York"}},
      {"Averyveryverylongname", {"unknown time zone Averyveryverylongname"}},
      {"Local",
       {"timeZone must be an explicit time zone as defined in "
        "https://www.iana.org/time-zones"}},
      {"local",
       {"timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones",
        "unknown time zone local"}},
      {"america/new_york", {"unknown time zone america/new_york"}},
  };
  for (const ZoneCase& c : cases) EXPECT_EQ(time_zone_problems(c.zone), c.problems) << c.zone;
}

}  // namespace
}  // namespace tailor::embedded
