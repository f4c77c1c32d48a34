// Quantity arithmetic, comparison, constructors and int64/double accessors, with apimachinery's
// expectations (TestAdd, TestSub, TestQuantity{Add,Sub}ZeroPreservesSuffix, TestQuantityCmp,
// TestQuantityNeg, TestQuantityRoundUp, TestScaledValue, TestNewSet, TestMilliNewSet,
// TestNewScaledSet, TestQuantityValueSaturates, TestScaledValueSaturationAndRounding,
// TestStringQuantityAsApproximateFloat64, TestAddSubRoundTrip).
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kube/model/quantity.h"
#include "tests/kube/model/quantity_test_util.h"

namespace tailor::kube {
namespace {

using quantity_test::kBin;
using quantity_test::kDec;
using quantity_test::kExp;
using quantity_test::text;

constexpr std::int64_t kMaxInt64 = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kMinInt64 = std::numeric_limits<std::int64_t>::min();

Quantity q(const char* s) { return Quantity::parse(s); }

struct BinaryOpCase {
  Quantity a;
  Quantity b;
  Quantity expected;
  QuantityFormat expected_format;
};

TEST(QuantityArithmetic, AddKeepsTheReceiverFormatUnlessItIsZero) {
  const std::vector<BinaryOpCase> cases = {
      {Quantity::from_int(10), Quantity::from_scaled(1, 1), Quantity::from_int(20), kDec},
      {Quantity::from_int(10), Quantity::from_int(1, kBin), Quantity::from_int(11), kDec},
      {Quantity::from_int(10, kBin), Quantity::from_int(1), Quantity::from_int(11), kBin},
      {Quantity(), Quantity::from_int(50), Quantity::from_int(50), kDec},
      {Quantity::from_int(50), Quantity(), Quantity::from_int(50), kDec},
      {Quantity(), Quantity(), Quantity(), kDec},
      {Quantity(), q("1Gi"), q("1Gi"), kBin},
      {q("1Gi"), Quantity(), q("1Gi"), kBin},
      {q("0Ki"), q("1e3"), q("1k"), kExp},
      {q("1e3"), q("1Ki"), q("2024"), kExp},
      {q("100m"), q("-100m"), Quantity(), kDec},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.a.to_string() + " + " + c.b.to_string());
    Quantity sum = c.a;
    sum += c.b;
    EXPECT_EQ(sum, c.expected);
    EXPECT_EQ(sum.format(), c.expected_format);
    EXPECT_EQ(c.a + c.b, c.expected);
  }
}

TEST(QuantityArithmetic, SubKeepsTheReceiverFormatUnlessItIsZero) {
  const std::vector<BinaryOpCase> cases = {
      {Quantity::from_int(10), Quantity::from_scaled(1, 1), Quantity(), kDec},
      {Quantity::from_int(10), Quantity::from_int(1, kBin), Quantity::from_int(9), kDec},
      {Quantity::from_int(10, kBin), Quantity::from_int(1), Quantity::from_int(9), kBin},
      {Quantity(), Quantity::from_int(50), Quantity::from_int(-50), kDec},
      {Quantity::from_int(50), Quantity(), Quantity::from_int(50), kDec},
      {Quantity(), Quantity(), Quantity(), kDec},
      {Quantity(), q("1Gi"), q("-1Gi"), kBin},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.a.to_string() + " - " + c.b.to_string());
    Quantity difference = c.a;
    difference -= c.b;
    EXPECT_EQ(difference, c.expected);
    EXPECT_EQ(difference.format(), c.expected_format);
    EXPECT_EQ(c.a - c.b, c.expected);
  }
}

TEST(QuantityArithmetic, AddingOrSubtractingZeroPreservesTheSuffix) {
  for (const char* s : {"100m", "1Gi", "1e3"}) {
    SCOPED_TRACE(s);
    EXPECT_EQ((q(s) + Quantity()).to_string(), s);
    EXPECT_EQ((Quantity() + q(s)).to_string(), s);
    EXPECT_EQ((q(s) - q("0")).to_string(), s);
    EXPECT_EQ((q("0") - q(s)).to_string(), (-q(s)).to_string());
    EXPECT_EQ((q("0") - q(s)).to_string(), std::string("-") + s);
  }
}

TEST(QuantityArithmetic, NegateKeepsFormatAndValue) {
  EXPECT_EQ((-Quantity::from_scaled(901, -2)).to_string(), "-9010m");
  EXPECT_EQ((-q("-10")).to_string(), "10");
  EXPECT_EQ((-Quantity::from_int(10, kBin)).format(), kBin);
  EXPECT_EQ((-Quantity()).to_string(), "0");
  EXPECT_EQ(-(-q("1.5Gi")), q("1.5Gi"));
  const Quantity most_negative = Quantity::from_int(kMinInt64);  // golden: int64-min-constructed
  EXPECT_EQ(most_negative.to_string(), "-9223372036854775808");
  EXPECT_EQ((-most_negative).to_string(), "9223372036854775808");
  EXPECT_EQ((Quantity::from_int(1) - most_negative).to_string(), "9223372036854775809");
  EXPECT_EQ((Quantity::from_scaled(1, 1) - most_negative).to_string(), "9223372036854775818");
  EXPECT_EQ((Quantity() - Quantity::from_int(kMinInt64, kBin)).to_string(), "8Ei");
}

TEST(QuantityArithmetic, AddSubRoundTripCancels) {
  std::mt19937_64 random(42);
  for (int scale = -9; scale <= 5; ++scale) {
    Quantity sum;
    std::vector<std::int64_t> order;
    for (int i = 0; i < 100; ++i) {
      order.push_back(static_cast<std::int64_t>(random() >> 1));
      sum += Quantity::from_scaled(order.back(), scale);
    }
    for (std::int64_t value : order) sum -= Quantity::from_scaled(value, scale);
    EXPECT_TRUE(sum.is_zero()) << "scale " << scale << ": " << sum;
  }
}

TEST(QuantityArithmetic, OverflowThrowsInsteadOfWrapping) {
  const Quantity max = Quantity::from_nano(Quantity::kMaxNano);
  const Quantity min = Quantity::from_nano(-Quantity::kMaxNano);
  const Quantity one_nano = q("1n");
  EXPECT_THROW(max + one_nano, QuantityError);
  EXPECT_THROW(min - one_nano, QuantityError);
  EXPECT_THROW(max - min, QuantityError);
  EXPECT_EQ(max + min, Quantity());
  EXPECT_EQ((max - one_nano) + one_nano, max);
  try {
    Quantity sum = max;
    sum += q("1");
    ADD_FAILURE() << "no overflow";
  } catch (const QuantityError& e) {
    EXPECT_NE(std::string(e.what()).find("quantity overflow"), std::string::npos) << e.what();
  }
  EXPECT_THROW(Quantity::from_nano(-Quantity::kMaxNano - 1), QuantityError);
}

TEST(QuantityCompare, ComparesValuesNotFormats) {
  struct Case {
    const char* x;
    const char* y;
    int expect;
  };
  const std::vector<Case> cases = {
      {"0", "0", 0},          {"100m", "50m", 1},  {"50m", "100m", -1}, {"10000T", "100Gi", 1},
      {"1Ki", "1024", 0},     {"1k", "1e3", 0},    {"1", "1000m", 0},   {"1Gi", "1G", 1},
      {"-1", "1n", -1},       {"-1Gi", "-1G", -1}, {"0Ki", "0e3", 0},   {"0.9n", "1n", 0},
      {"1.5Gi", "1536Mi", 0}, {"8Ei", "9Ei", 0},   {"12E", "8Ei", 1},   {"-0", "0", 0},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(c.x) + " vs " + c.y);
    const auto order = q(c.x) <=> q(c.y);
    EXPECT_EQ(order < 0 ? -1 : (order > 0 ? 1 : 0), c.expect);
    EXPECT_EQ(q(c.x) == q(c.y), c.expect == 0);
    const auto reverse = q(c.y) <=> q(c.x);
    EXPECT_EQ(reverse < 0 ? -1 : (reverse > 0 ? 1 : 0), -c.expect);
  }
}

TEST(QuantityCompare, SignAndZero) {
  EXPECT_EQ(q("100m").sign(), 1);
  EXPECT_EQ(q("-1n").sign(), -1);
  EXPECT_EQ(q("0Gi").sign(), 0);
  EXPECT_TRUE(Quantity().is_zero());
  EXPECT_EQ(Quantity().format(), kDec);
  EXPECT_EQ(Quantity().to_string(), "0");
}

// TestQuantityRoundUp and TestScaledValueSaturationAndRounding: rounding is away from zero.
TEST(QuantityScaledValue, RoundsAwayFromZeroForBothSigns) {
  struct Case {
    const char* input;
    int scale;
    std::int64_t expect;
  };
  const std::vector<Case> cases = {
      {"9.01", -3, 9010},
      {"9.01", -2, 901},
      {"9.01", -1, 91},
      {"9.01", 0, 10},
      {"9.01", 1, 1},
      {"9.01", 2, 1},
      {"-9.01", -3, -9010},
      {"-9.01", -2, -901},
      {"-9.01", -1, -91},
      {"-9.01", 0, -10},
      {"-9.01", 1, -1},
      {"-9.01", 2, -1},
      {"9.5", 0, 10},
      {"-9.5", 0, -10},
      {"10", 0, 10},
      {"-10", 0, -10},
      {"1m", 0, 1},
      {"-1m", 0, -1},
      {"0.0005", -3, 1},
      {"-0.0005", -3, -1},
      {"1500u", -3, 2},
      {"-1500u", -3, -2},
      {"100m", -3, 100},
      {"-100m", -3, -100},
      {"1n", -9, 1},
      {"1", -9, 1000000000},
      {"7", 2000000000, 1},
      {"-7", 2000000000, -1},
      {"7", -2000000000, kMaxInt64},
      {"-7", -2000000000, kMinInt64},
      {"0", -2000000000, 0},
      {"1.5Gi", 6, 1611},
      {"1Ki", 3, 2},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(c.input) + " at scale " + std::to_string(c.scale));
    EXPECT_EQ(q(c.input).scaled_value(c.scale), c.expect);
  }
  EXPECT_EQ(q("-9.01").value(), -10);
  EXPECT_EQ(q("-9.01").milli_value(), -9010);
  EXPECT_EQ(q("0.1n").milli_value(), 1);
  EXPECT_EQ(q("-0.1n").milli_value(), -1);
  EXPECT_EQ(q("250m").value(), 1);
  EXPECT_EQ(q("-250m").value(), -1);
}

TEST(QuantityScaledValue, SaturatesAtTheInt64Range) {
  EXPECT_EQ(Quantity::from_scaled(kMaxInt64, 1).value(), kMaxInt64);
  EXPECT_EQ(Quantity::from_scaled(kMinInt64, 1).value(), kMinInt64);
  EXPECT_EQ(Quantity::from_int(kMaxInt64).milli_value(), kMaxInt64);
  EXPECT_EQ(Quantity::from_int(kMinInt64).milli_value(), kMinInt64);
  EXPECT_EQ(q("9223372036854775807").value(), kMaxInt64);
  EXPECT_EQ(q("-9223372036854775808").value(), kMinInt64);
  EXPECT_EQ(q("9223372036854775808").value(), kMaxInt64);
  EXPECT_EQ(q("-9223372036854775809").value(), kMinInt64);
  EXPECT_EQ(q("1e29").value(), kMaxInt64);
  EXPECT_EQ(q("-1e29").value(), kMinInt64);
  EXPECT_EQ(q("9Ei").value(), kMaxInt64);
}

// TestScaledValue: NewScaledQuantity(1, from).ScaledValue(to).
TEST(QuantityScaledValue, BetweenScales) {
  struct Case {
    int from;
    int to;
    std::int64_t expect;
  };
  const std::vector<Case> cases = {
      {-9, -9, 1}, {-9, -6, 1},    {-9, -3, 1},         {-9, 0, 1},        {-6, -9, 1000},
      {-6, -6, 1}, {-6, -3, 1},    {-6, 0, 1},          {-3, -9, 1000000}, {-3, -6, 1000},
      {-3, -3, 1}, {-3, 0, 1},     {0, -9, 1000000000}, {0, -6, 1000000},  {0, -3, 1000},
      {0, 0, 1},   {2, -2, 10000},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(std::to_string(c.from) + " -> " + std::to_string(c.to));
    EXPECT_EQ(Quantity::from_scaled(1, c.from).scaled_value(c.to), c.expect);
  }
}

// TestNewSet, TestMilliNewSet and TestNewScaledSet.
TEST(QuantityConstruct, FromIntMilliAndScaled) {
  struct Case {
    Quantity quantity;
    const char* expect;
  };
  const std::vector<Case> cases = {
      {Quantity::from_int(1), "1"},
      {Quantity::from_int(1000), "1k"},
      {Quantity::from_int(1234000), "1234k"},
      {Quantity::from_int(1024, kBin), "1Ki"},
      {Quantity::from_int(1000000, kExp), "1e6"},
      {Quantity::from_int(1024 * 1024, kBin), "1Mi"},
      {Quantity::from_milli(1), "1m"},
      {Quantity::from_milli(1000), "1"},
      {Quantity::from_milli(1234000), "1234"},
      {Quantity::from_milli(1024, kBin), "1024m"},
      {Quantity::from_milli(1000000, kExp), "1e3"},
      {Quantity::from_milli(1024 * 1024, kBin), "1048576m"},
      {Quantity::from_milli(1441), "1441m"},
      {Quantity::from_scaled(1, -9), "1n"},
      {Quantity::from_scaled(1000, -9), "1u"},
      {Quantity::from_scaled(1, -6), "1u"},
      {Quantity::from_scaled(1000, -6), "1m"},
      {Quantity::from_scaled(1, -3), "1m"},
      {Quantity::from_scaled(1000, -3), "1"},
      {Quantity::from_scaled(1, 0), "1"},
      {Quantity::from_scaled(0, -9), "0"},
      {Quantity::from_scaled(0, -3), "0"},
      {Quantity::from_scaled(0, 0), "0"},
      {Quantity::from_scaled(1, 21), "1e21"},
      {Quantity::from_scaled(10800, -10), "1080n"},
      {Quantity::from_scaled(0, -100), "0"},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(c.quantity.to_string(), c.expect);
    EXPECT_EQ(Quantity::parse(c.expect), c.quantity) << c.expect;
  }
  EXPECT_EQ(Quantity::from_int(5, kBin).format(), kBin);
  EXPECT_EQ(Quantity::from_milli(1, kExp).format(), kExp);
}

TEST(QuantityConstruct, UnrepresentableScaledValuesThrow) {
  EXPECT_THROW(Quantity::from_scaled(1, -10), QuantityError);          // 0.1n
  EXPECT_THROW(Quantity::from_scaled(-15, -10), QuantityError);        // -1.5n
  EXPECT_THROW(Quantity::from_scaled(1, -2000000000), QuantityError);  // far below 1n
  EXPECT_THROW(Quantity::from_scaled(1, 30), QuantityError);           // 1e30 > 1.7e29
  EXPECT_THROW(Quantity::from_scaled(kMaxInt64, 20), QuantityError);
  EXPECT_THROW(Quantity::from_scaled(1, 2000000000), QuantityError);
  EXPECT_EQ(text(Quantity::from_scaled(kMinInt64, 10).nano()),
            "-9223372036854775808" + std::string(19, '0'));
  try {
    Quantity::from_scaled(1, -10);
  } catch (const QuantityError& e) {
    EXPECT_NE(std::string(e.what()).find("from_scaled(1, -10)"), std::string::npos) << e.what();
  }
}

// TestStringQuantityAsApproximateFloat64 and the very-large rows of its table.
TEST(QuantityAsDouble, ApproximatesTheValue) {
  EXPECT_EQ(q("2Ki").as_double(), 2048.0);
  EXPECT_EQ(q("1.1Ki").as_double(), 1126.4);
  EXPECT_EQ(q("1Mi").as_double(), 1.048576e+06);
  EXPECT_EQ(q("2Gi").as_double(), 2.147483648e+09);
  EXPECT_EQ(q("12E").as_double(), 1.2e19);
  EXPECT_EQ(q("9Ei").as_double(), static_cast<double>(kMaxInt64));
  EXPECT_EQ(q("0").as_double(), 0.0);
  EXPECT_EQ(q("100m").as_double(), 0.1);
  EXPECT_EQ(q("-1.5").as_double(), -1.5);
  EXPECT_EQ(q("1n").as_double(), 1e-9);
  EXPECT_DOUBLE_EQ(q("1e29").as_double(), 1e29);
}

}  // namespace
}  // namespace tailor::kube
