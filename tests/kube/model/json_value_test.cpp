// Numbers in JSON text read as Go's encoding/json reads them (strconv.ParseFloat): a zero
// mantissa is ±0 whatever its exponent (Boost.JSON alone gives NaN), an underflow is 0, a number
// past float64's range is an error naming it, never Infinity.
#include "kube/model/json_value.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <cmath>
#include <cstdint>
#include <string>

namespace tailor::kube::json {
namespace {

struct ReadNumber {
  const char* text;
  double value;
};

class JsonValueNumberTest : public ::testing::TestWithParam<ReadNumber> {};

TEST_P(JsonValueNumberTest, ReadsAsParseFloatDoes) {
  boost::system::error_code ec;
  boost::json::value v = parse_value(std::string("[") + GetParam().text + "]", ec);
  ASSERT_FALSE(ec) << ec.message();
  double got = v.as_array().at(0).to_number<double>();
  EXPECT_EQ(got, GetParam().value);
  EXPECT_EQ(std::signbit(got), std::signbit(GetParam().value));
}

INSTANTIATE_TEST_SUITE_P(
    Numbers, JsonValueNumberTest,
    ::testing::Values(ReadNumber{"0e400", 0.0}, ReadNumber{"-0e400", -0.0},
                      ReadNumber{"0.0e999", 0.0}, ReadNumber{"-0.000E+999", -0.0},
                      ReadNumber{"0e99999999999999999999", 0.0}, ReadNumber{"0e999999999", 0.0},
                      ReadNumber{"-1e-999999999", -0.0}, ReadNumber{"1e-214748365", 0.0},
                      ReadNumber{"1e-999", 0.0}, ReadNumber{"-1e-400", -0.0},
                      ReadNumber{"1e-99999999999999999999", 0.0},
                      ReadNumber{"1.7976931348623157e308", 1.7976931348623157e308},
                      ReadNumber{"4.9e-324", 4.9e-324}, ReadNumber{"0", 0.0},
                      ReadNumber{"-0.0", -0.0}, ReadNumber{"1.5", 1.5},
                      ReadNumber{"-250e-3", -0.25},
                      ReadNumber{"2.2250738585072011e-308", 2.2250738585072011e-308},
                      ReadNumber{"23445853463659930e-54", 23445853463659930e-54},
                      ReadNumber{"83844110200328628e165", 83844110200328628e165},
                      ReadNumber{"2e-324", 0.0}, ReadNumber{"-3e-324", -4.9406564584124654e-324},
                      ReadNumber{"123456789e300", 1.23456789e308},
                      ReadNumber{"12345678901234567890", 1.2345678901234567e19},
                      ReadNumber{"9007199254740993", 9007199254740993.0}));

struct RefusedNumber {
  const char* text;
};

class JsonValueRefusedTest : public ::testing::TestWithParam<RefusedNumber> {};

// Strings and later numbers do not hide which number was refused.
TEST_P(JsonValueRefusedTest, OutOfRangeIsAnErrorNamingTheNumber) {
  const std::string text =
      std::string(R"({"a":"1e999 in a string","b":[1,)") + GetParam().text + R"(,2e999]})";
  boost::system::error_code ec;
  (void)parse_value(text, ec);
  EXPECT_EQ(ec, number_out_of_range());
  EXPECT_EQ(out_of_range_number(text), GetParam().text);
}

INSTANTIATE_TEST_SUITE_P(Numbers, JsonValueRefusedTest,
                         ::testing::Values(RefusedNumber{"1e999"}, RefusedNumber{"-1e400"},
                                           RefusedNumber{"1.7976931348623159e308"},
                                           RefusedNumber{"1e99999999999999999999"},
                                           RefusedNumber{"1e999999999"},
                                           RefusedNumber{"1e214748365"},
                                           RefusedNumber{"123456789e301"}));

TEST(JsonValue, OtherErrorsAreBoostJsonsOwn) {
  boost::system::error_code ec;
  (void)parse_value("[1,", ec);
  ASSERT_TRUE(ec);
  EXPECT_NE(ec, number_out_of_range());
  EXPECT_EQ(out_of_range_number("[1,2]"), "");
}

// The embedded_objects fuzz finding: exponents past Boost.JSON's range are cut and the text parsed
// again; the cut took junk after a number for exponent digits ("222e0023-22999992" became
// "222e100000000"), so malformed text was refused as holding a number out of range that no
// message could name.
TEST(JsonValue, JunkAfterAHugeExponentStaysASyntaxError) {
  for (const char* text : {"[1e-6722222222222222227222e226,222e0023-22999992FFF",
                           "[0e12262232462232491,20ee12262232462232490e4]", "[1e9999999999-5]"}) {
    boost::system::error_code ec;
    (void)parse_value(text, ec);
    EXPECT_TRUE(ec) << text;
    EXPECT_NE(ec, number_out_of_range()) << text;
  }
}

TEST(JsonValue, DepthIsTheCallersOption) {
  boost::json::parse_options deep;
  deep.max_depth = 100;
  const std::string text = std::string(64, '[') + "0e400" + std::string(64, ']');
  boost::system::error_code ec;
  (void)parse_value(text, ec);
  EXPECT_EQ(ec, boost::json::error::too_deep);
  ec.clear();
  (void)parse_value(text, ec, deep);
  EXPECT_FALSE(ec) << ec.message();
}

// The embedded_patches fuzz finding: a merge patch holding 0e400 applied twice changed the
// object the second time (NaN != NaN); read as 0 it is an ordinary number.
TEST(JsonValue, ZeroMantissaIsAnOrdinaryZero) {
  boost::system::error_code ec;
  boost::json::value v = parse_value(R"({"spe":[{"t":0e400}]})", ec);
  ASSERT_FALSE(ec);
  EXPECT_EQ(v, boost::json::parse(R"({"spe":[{"t":0.0}]})"));
}

// The crd_schema fuzz finding: 8.9e25 under "type: integer" was cast to int64 (undefined).
TEST(JsonValue, IntegerOfIsKubeApiserversIntegerCheck) {
  const boost::json::value yes[] = {0, -7, INT64_MAX, INT64_MIN, 3.0, -9007199254740991.0};
  for (const boost::json::value& v : yes)
    EXPECT_EQ(integer_of(v), v.to_number<std::int64_t>()) << v;
  const boost::json::value no[] = {
      1.5, 9007199254740992.0, 8.9e25, -1e300, UINT64_MAX, "1", true, nullptr};
  for (const boost::json::value& v : no) EXPECT_FALSE(integer_of(v)) << v;
}

}  // namespace
}  // namespace tailor::kube::json
