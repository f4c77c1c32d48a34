// JSON text as kube-apiserver parses it, its numbers (kube/model/json_value.h): a number past
// float64's range is refused with encoding/json's message, and over HTTP that is a 400 and
// nothing stored or changed.
#include "embedded/storage/json_text.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <cmath>
#include <string>

#include "tests/embedded/raw_http_fixture.h"

namespace tailor::embedded::testing {
namespace {

class JsonTextRefusedTest : public ::testing::TestWithParam<const char*> {};

TEST_P(JsonTextRefusedTest, OutOfRangeIsRefusedWithGosMessage) {
  const std::string text =
      std::string(R"({"a":"1e999 in a string","b":[1,)") + GetParam() + R"(,2e999]})";
  boost::system::error_code ec;
  (void)parse_json_text(text, ec);
  ASSERT_EQ(ec, number_out_of_range());
  EXPECT_EQ(go_json_error(text, ec), std::string("json: cannot unmarshal number ") + GetParam() +
                                         " into Go value of type float64");
  EXPECT_THROW((void)parse_json_text(text), boost::system::system_error);
}

INSTANTIATE_TEST_SUITE_P(Numbers, JsonTextRefusedTest,
                         ::testing::Values("1e999", "-1e400", "1e99999999999999999999"));

TEST(JsonText, ZeroMantissaWithAHugeExponentIsZeroAtAnyDepth) {
  const std::string text = std::string(1000, '[') + "-0e400" + std::string(1000, ']');
  boost::json::value v = parse_json_text(text);
  for (int i = 0; i < 1000; ++i) v = boost::json::value(v.as_array().at(0));
  EXPECT_EQ(v.as_double(), 0.0);
  EXPECT_TRUE(std::signbit(v.as_double()));
}

TEST(JsonText, OtherErrorsHaveNoGoMessageOfTheirOwn) {
  boost::system::error_code ec;
  (void)parse_json_text("[1,", ec);
  ASSERT_TRUE(ec);
  EXPECT_EQ(go_json_error("[1,", ec), "");
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
