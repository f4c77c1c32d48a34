// Numbers in JSON text read as kube-apiserver's encoding/json reads them (strconv.ParseFloat): a
// zero mantissa is ±0 whatever its exponent (Boost.JSON alone gives NaN, the fuzz finding of
// embedded_patches), an underflow is 0, a number past float64's range is refused with Go's message
// instead of becoming Infinity. Over HTTP: a 400 with that message, nothing stored.
#include "embedded/storage/json_text.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <cmath>
#include <string>

#include "tests/embedded/raw_http_fixture.h"

namespace tailor::embedded::testing {
namespace {

struct ReadNumber {
  const char* text;
  double value;
};

class JsonTextNumberTest : public ::testing::TestWithParam<ReadNumber> {};

TEST_P(JsonTextNumberTest, ReadsAsParseFloatDoes) {
  boost::system::error_code ec;
  boost::json::value v = parse_json_text(std::string("[") + GetParam().text + "]", ec);
  ASSERT_FALSE(ec) << ec.message();
  double got = v.as_array().at(0).to_number<double>();
  EXPECT_EQ(got, GetParam().value);
  EXPECT_EQ(std::signbit(got), std::signbit(GetParam().value));
}

INSTANTIATE_TEST_SUITE_P(
    Numbers, JsonTextNumberTest,
    ::testing::Values(ReadNumber{"0e400", 0.0}, ReadNumber{"-0e400", -0.0},
                      ReadNumber{"0.0e999", 0.0}, ReadNumber{"-0.000E+999", -0.0},
                      ReadNumber{"0e99999999999999999999", 0.0}, ReadNumber{"1e-999", 0.0},
                      ReadNumber{"-1e-400", -0.0}, ReadNumber{"1e-99999999999999999999", 0.0},
                      ReadNumber{"1.7976931348623157e308", 1.7976931348623157e308},
                      ReadNumber{"4.9e-324", 4.9e-324}, ReadNumber{"0", 0.0},
                      ReadNumber{"-0.0", -0.0}, ReadNumber{"1.5", 1.5},
                      ReadNumber{"-250e-3", -0.25},
                      ReadNumber{"12345678901234567890", 1.2345678901234567e19},
                      ReadNumber{"9007199254740993", 9007199254740993.0}));

struct RefusedNumber {
  const char* text;
  const char* go_number;  // the number as Go's message names it
};

class JsonTextRefusedTest : public ::testing::TestWithParam<RefusedNumber> {};

TEST_P(JsonTextRefusedTest, OutOfRangeIsRefusedWithGosMessage) {
  const std::string text =
      std::string(R"({"a":"1e999 in a string","b":[1,)") + GetParam().text + R"(,2e999]})";
  boost::system::error_code ec;
  (void)parse_json_text(text, ec);
  ASSERT_EQ(ec, number_out_of_range());
  EXPECT_EQ(go_json_error(text, ec), std::string("json: cannot unmarshal number ") +
                                         GetParam().go_number + " into Go value of type float64");
  EXPECT_THROW((void)parse_json_text(text), boost::system::system_error);
}

INSTANTIATE_TEST_SUITE_P(
    Numbers, JsonTextRefusedTest,
    ::testing::Values(RefusedNumber{"1e999", "1e999"}, RefusedNumber{"-1e400", "-1e400"},
                      RefusedNumber{"1.7976931348623159e308", "1.7976931348623159e308"},
                      RefusedNumber{"1e99999999999999999999", "1e99999999999999999999"}));

TEST(JsonText, OtherErrorsHaveNoGoMessageOfTheirOwn) {
  boost::system::error_code ec;
  (void)parse_json_text("[1,", ec);
  ASSERT_TRUE(ec);
  EXPECT_NE(ec, number_out_of_range());
  EXPECT_EQ(go_json_error("[1,", ec), "");
}

// The fuzz finding: a merge patch holding 0e400 applied twice changed the object the second time
// (NaN != NaN); read as 0 it is an ordinary number.
TEST(JsonText, FuzzFindingZeroMantissaIsAnOrdinaryZero) {
  boost::json::value v = parse_json_text(R"({"spe":[{"t":0e400}]})");
  EXPECT_EQ(v, boost::json::parse(R"({"spe":[{"t":0.0}]})"));
}

class OutOfRangeNumberHttpTest : public ApiOnlyRawHttpTest {};

TEST_F(OutOfRangeNumberHttpTest, CreateAndPatchAreRefusedAndNothingChanges) {
  constexpr const char* kConfigMaps = "/api/v1/namespaces/default/configmaps";
  auto refused = send("POST", kConfigMaps, "application/json",
                      R"({"metadata":{"name":"huge","annotations":{"a":"b"}},"x":1e999})");
  ASSERT_EQ(refused.status, 400) << refused.body;
  EXPECT_EQ(status_message(refused),
            "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: json: cannot unmarshal "
            "number 1e999 into Go value of type float64");
  EXPECT_EQ(send("GET", std::string(kConfigMaps) + "/huge", "", "").status, 404);

  ASSERT_EQ(send("POST", kConfigMaps, "application/json", R"({"metadata":{"name":"kept"}})").status,
            201);
  auto patched = send("PATCH", std::string(kConfigMaps) + "/kept", "application/merge-patch+json",
                      R"({"metadata":{"labels":{"a":"b"}},"x":-1e400})");
  ASSERT_EQ(patched.status, 400) << patched.body;
  EXPECT_EQ(status_message(patched),
            "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: json: cannot unmarshal "
            "number -1e400 into Go value of type float64");
  auto kept = send("GET", std::string(kConfigMaps) + "/kept", "", "");
  ASSERT_EQ(kept.status, 200);
  EXPECT_EQ(kept.body.find("labels"), std::string::npos);
}

}  // namespace
}  // namespace tailor::embedded::testing
