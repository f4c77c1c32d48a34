// Invalid and out-of-range quantity strings: apimachinery's invalid table (TestQuantityParse,
// TestQuantityParseNonNumericPanic, TestQuantityValueSet) plus grammar edges of
// parseQuantityString and suffix interpretation, and the values Tailor cannot hold.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kube/model/quantity.h"

namespace tailor::kube {
namespace {

struct InvalidCase {
  std::string input;
  std::string message_part;  // the error must say this
};

const std::vector<InvalidCase> kInvalidCases = {
    {"", "empty string"},
    // apimachinery's invalid table
    {"1.1.M", "unexpected character \".\" at offset 3"},
    {"1+1.0M", "unexpected character \".\" at offset 3"},
    {"0.1mi", "unknown suffix \"mi\""},
    {"0.1am", "unexpected character \"a\" at offset 3"},
    {"aoeu", "unexpected character \"a\" at offset 0"},
    {".5i", "unknown suffix \"i\""},
    {"1i", "unknown suffix \"i\""},
    {"-3.01i", "unknown suffix \"i\""},
    {"-3.01e-", "unknown suffix \"e-\""},
    {" 1", "unexpected character \" \" at offset 0"},
    {"1 ", "unexpected character \" \" at offset 1"},
    {"Non-Numeric", "unexpected character \"N\" at offset 0"},
    {"invalid", "unexpected character \"v\" at offset 2"},
    // grammar and suffix edges
    {"1.1.1", "at offset 3"},
    {"1Q", "unexpected character \"Q\" at offset 1"},
    {"1 Gi", "at offset 1"},
    {"1e", "unknown suffix \"e\""},
    {"1E+", "unknown suffix \"E+\""},
    {"--1", "unknown suffix \"-1\""},
    {"+-1", "unknown suffix \"-1\""},
    {"1ki", "unknown suffix \"ki\""},  // suffixes are case-sensitive
    {"1K", "unknown suffix \"K\""},
    {"1KI", "at offset 2"},
    {"1MI", "at offset 2"},
    {"1mM", "unknown suffix \"mM\""},
    {"1Ee3", "unknown suffix \"Ee3\""},
    {"1e3.5", "at offset 3"},
    {"1e3e3", "at offset 3"},
    {"1m3", "unknown suffix \"m3\""},
    {"1Mi-3", "unknown suffix \"Mi-3\""},
    {"1e+-3", "at offset 3"},
    {"1,5", "at offset 1"},
    {"1_000", "at offset 1"},
    {"0x10", "at offset 1"},
    {"1\n", "unexpected character \"\\x0a\" at offset 1"},
    {"\xff", "unexpected character \"\\xff\" at offset 0"},
    {"1e99999999999999999999", "exponent \"e99999999999999999999\" out of range"},
    // Tailor: apimachinery wraps an int64 exponent to int32 and parses this as 1.
    {"1e4294967296", "exponent \"e4294967296\" out of range"},
    {"1e2147483648", "out of range"},
    // Tailor: apimachinery keeps these in an inf.Dec; they exceed our 128-bit nano range.
    {"1e100", "magnitude too large"},
    {"-1e100", "magnitude too large"},
    {"2e29", "magnitude too large"},
    {"170141183460469231731687303715.884105728", "magnitude too large"},    // 2^127 nano
    {"-170141183460469231731687303715.8841057271", "magnitude too large"},  // rounds up to it
    {"1e2147483647", "magnitude too large"},
    {"1000000000000000000000000000000000000000000", "magnitude too large"},
    {"1000000000000000000000000000000000000000E", "magnitude too large"},
};

TEST(QuantityInvalid, ThrowsAndTryParseFailsWithAClearMessage) {
  for (const auto& c : kInvalidCases) {
    SCOPED_TRACE("input: \"" + c.input + "\"");
    std::string error;
    EXPECT_FALSE(Quantity::try_parse(c.input, &error).has_value());
    EXPECT_NE(error.find("invalid quantity"), std::string::npos) << error;
    EXPECT_NE(error.find(c.message_part), std::string::npos) << error;
    EXPECT_FALSE(Quantity::try_parse(c.input).has_value());  // no error sink: still nullopt
    try {
      Quantity::parse(c.input);
      ADD_FAILURE() << "parse accepted it";
    } catch (const QuantityError& e) {
      EXPECT_EQ(error, e.what());
    }
  }
}

TEST(QuantityInvalid, MessageQuotesTheInput) {
  std::string error;
  ASSERT_FALSE(Quantity::try_parse("12 cores", &error));
  EXPECT_EQ(error,
            "invalid quantity \"12 cores\": unexpected character \" \" at offset 2 (expected "
            "<sign><digits>.<digits><suffix>, e.g. 100m, 1.5Gi, 1e3)");
  ASSERT_FALSE(Quantity::try_parse(std::string(100, '7') + "x", &error));
  EXPECT_NE(error.find(std::string(64, '7') + "\"..."), std::string::npos) << error;
}

// The largest magnitudes that still fit, next to the ones above.
TEST(QuantityInvalid, LargestRepresentableValuesParse) {
  EXPECT_EQ(Quantity::parse("1e29").to_string(), "100e27");
  EXPECT_EQ(Quantity::parse("-1e29").to_string(), "-100e27");
  EXPECT_TRUE(Quantity::parse("170141183460469231731687303715.884105727").nano() ==
              Quantity::kMaxNano);
  EXPECT_TRUE(Quantity::parse("-170141183460469231731687303715.8841057269").nano() ==
              -Quantity::kMaxNano);
  // Binary values never overflow: apimachinery caps them at 2^63-1 whatever their size.
  EXPECT_EQ(Quantity::parse("1000000000000000000000000000000000000000000Ki").to_string(),
            "9223372036854775807");
  EXPECT_EQ(Quantity::parse("0e2147483647").to_string(), "0");
}

// apimachinery accepts a missing number as zero; so do we.
TEST(QuantityInvalid, EmptyNumberIsZeroLikeApimachinery) {
  for (const char* input : {".", "-.", "+", "-", "+.", "Ki", "-Mi", "m", "E", "e3", "00", "-0.0"}) {
    SCOPED_TRACE(input);
    const auto parsed = Quantity::try_parse(input);
    ASSERT_TRUE(parsed.has_value());
    EXPECT_TRUE(parsed->is_zero());
    EXPECT_EQ(parsed->to_string(), "0");
  }
}

}  // namespace
}  // namespace tailor::kube
