#include "kube/observe/duration.h"

#include <gtest/gtest.h>

#include <limits>
#include <stdexcept>

namespace tailor::kube {
namespace {

using namespace std::chrono_literals;

struct DurationCase {
  const char* text;
  Duration want;
};
void PrintTo(const DurationCase& c, std::ostream* os) { *os << c.text; }

class ParseDurationTest : public ::testing::TestWithParam<DurationCase> {};

TEST_P(ParseDurationTest, ParsesLikeGo) {
  EXPECT_EQ(parse_duration(GetParam().text).count(), GetParam().want.count()) << GetParam().text;
}

// Cases from Go's time.ParseDuration documentation and tests.
INSTANTIATE_TEST_SUITE_P(
    Go, ParseDurationTest,
    ::testing::Values(
        DurationCase{"0", 0s}, DurationCase{"5s", 5s}, DurationCase{"30s", 30s},
        DurationCase{"1478s", 1478s}, DurationCase{"-5s", -5s}, DurationCase{"+5s", 5s},
        DurationCase{"-0", 0s}, DurationCase{"5.0s", 5s}, DurationCase{"5.6s", 5600ms},
        DurationCase{"5.s", 5s}, DurationCase{".5s", 500ms}, DurationCase{"1.0s", 1s},
        DurationCase{"1.00s", 1s}, DurationCase{"1.004s", 1004ms},
        DurationCase{"100.00100s", 100001ms}, DurationCase{"10ns", 10ns},
        DurationCase{"11us", 11us}, DurationCase{"12\xC2\xB5s", 12us},
        DurationCase{"12\xCE\xBCs", 12us}, DurationCase{"13ms", 13ms}, DurationCase{"14s", 14s},
        DurationCase{"15m", 15min}, DurationCase{"16h", 16h}, DurationCase{"3h30m", 3h + 30min},
        DurationCase{"1m30s", 90s}, DurationCase{"10.5s4m", 4min + 10500ms},
        DurationCase{"-2m3.4s", -(2min + 3400ms)},
        DurationCase{"1h2m3s4ms5us6ns", 1h + 2min + 3s + 4ms + 5us + 6ns},
        DurationCase{"39h9m14.425s", 39h + 9min + 14425ms},
        DurationCase{"52763797000ns", 52763797000ns}, DurationCase{"0.3333333333333333333h", 20min},
        DurationCase{"9223372036854775807ns", Duration(std::numeric_limits<std::int64_t>::max())},
        DurationCase{"0.100000000000000000000h", 6min}));

class BadDurationTest : public ::testing::TestWithParam<const char*> {};

TEST_P(BadDurationTest, IsAClearError) {
  try {
    parse_duration(GetParam());
    FAIL() << "no error for " << GetParam();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(std::string("\"") + GetParam() + "\""), std::string::npos)
        << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(Go, BadDurationTest,
                         ::testing::Values("", "3", "-", "s", ".", "-.", ".s", "+.s", "1d", "15 s",
                                           "x5s", "5sx", "1.2.3s", "9223372036854775808ns",
                                           "3000000h", "99999999999999999999s"));

TEST(FormatDurationTest, MatchesGoString) {
  EXPECT_EQ(format_duration(0s), "0s");
  EXPECT_EQ(format_duration(1ns), "1ns");
  EXPECT_EQ(format_duration(1100ns), "1.1\xC2\xB5s");
  EXPECT_EQ(format_duration(2200us), "2.2ms");
  EXPECT_EQ(format_duration(500ms), "500ms");
  EXPECT_EQ(format_duration(3300ms), "3.3s");
  EXPECT_EQ(format_duration(90s), "1m30s");
  EXPECT_EQ(format_duration(4min + 5s), "4m5s");
  EXPECT_EQ(format_duration(4min + 5001ms), "4m5.001s");
  EXPECT_EQ(format_duration(5h + 6min + 7001ms), "5h6m7.001s");
  EXPECT_EQ(format_duration(8min + 1ns), "8m0.000000001s");
  EXPECT_EQ(format_duration(1h), "1h0m0s");
  EXPECT_EQ(format_duration(-15s), "-15s");
  EXPECT_EQ(format_duration(Duration(std::numeric_limits<std::int64_t>::max())),
            "2562047h47m16.854775807s");
  EXPECT_EQ(format_duration(Duration(std::numeric_limits<std::int64_t>::min())),
            "-2562047h47m16.854775808s");
}

TEST(FormatDurationTest, RoundTrips) {
  for (Duration d : {Duration(1500ms), Duration(3h + 7min), Duration(250us), Duration(-42ns)}) {
    EXPECT_EQ(parse_duration(format_duration(d)), d);
  }
}

}  // namespace
}  // namespace tailor::kube
