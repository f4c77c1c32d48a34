#include "kube/model/time.h"

#include <gtest/gtest.h>

namespace tailor::kube {
namespace {

using namespace std::chrono;

TimePoint at(int y, unsigned mo, unsigned d, int h, int mi, int s) {
  return TimePoint(sys_days(year(y) / month(mo) / day(d))) + hours(h) + minutes(mi) + seconds(s);
}

TEST(Rfc3339, ParsesUtcOffsetsAndFractions) {
  EXPECT_EQ(parse_rfc3339("2025-03-01T10:00:00Z"), at(2025, 3, 1, 10, 0, 0));
  EXPECT_EQ(parse_rfc3339("2025-03-01T12:30:00+02:30"), at(2025, 3, 1, 10, 0, 0));
  EXPECT_EQ(parse_rfc3339("2025-02-28T23:00:00-01:00"), at(2025, 3, 1, 0, 0, 0));
  EXPECT_EQ(parse_rfc3339("2025-03-01T10:00:00.123456Z"),
            at(2025, 3, 1, 10, 0, 0) + microseconds(123456));
  EXPECT_EQ(parse_rfc3339("2025-03-01T10:00:00.5Z"), at(2025, 3, 1, 10, 0, 0) + milliseconds(500));
  EXPECT_EQ(parse_rfc3339("2025-03-01T10:00:00.1234567891Z"),
            at(2025, 3, 1, 10, 0, 0) + nanoseconds(123456789));
  EXPECT_EQ(parse_rfc3339("2024-02-29T00:00:00Z"), at(2024, 2, 29, 0, 0, 0));
}

TEST(Rfc3339, RejectsInvalidText) {
  for (const char* bad :
       {"", "2025-03-01", "2025-03-01 10:00:00Z", "2025-03-01T10:00:00", "2025-13-01T10:00:00Z",
        "2025-02-29T10:00:00Z", "2025-03-01T24:00:00Z", "2025-03-01T10:60:00Z",
        "2025-03-01T10:00:00.Z", "2025-03-01T10:00:00+0200", "2025-03-01T10:00:00Zjunk",
        "25-03-01T10:00:00Z", "2025-03-01t10:00:00z"}) {
    SCOPED_TRACE(bad);
    EXPECT_THROW(parse_rfc3339(bad), TimeError);
    EXPECT_FALSE(try_parse_rfc3339(bad).has_value());
  }
}

TEST(Rfc3339, ErrorNamesTheText) {
  try {
    parse_rfc3339("2025-03-01T10:00");
    FAIL();
  } catch (const TimeError& e) {
    EXPECT_STREQ(e.what(),
                 "invalid RFC 3339 time \"2025-03-01T10:00\": expected ':' after the minutes");
  }
}

TEST(Rfc3339, FormatsTimeAndMicroTime) {
  TimePoint t = at(2025, 3, 1, 9, 5, 7) + nanoseconds(123456789);
  EXPECT_EQ(format_rfc3339(t), "2025-03-01T09:05:07Z");
  EXPECT_EQ(format_rfc3339_micro(t), "2025-03-01T09:05:07.123456Z");
  EXPECT_EQ(parse_rfc3339(format_rfc3339_micro(t)), at(2025, 3, 1, 9, 5, 7) + microseconds(123456));
  EXPECT_EQ(format_rfc3339(at(1969, 12, 31, 23, 59, 59) + milliseconds(500)),
            "1969-12-31T23:59:59Z");
}

}  // namespace
}  // namespace tailor::kube
