#include "kube/observe/log_entry.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <limits>

namespace tailor::kube::log {
namespace {

using namespace std::chrono_literals;

// 2026-11-22 00:20:21.123456789 UTC
const auto kTime = std::chrono::system_clock::time_point(1795306821123456789ns);

class LogEntryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("TZ", "UTC", 1);  // klog prints local time
    tzset();
  }
  Entry entry(std::string_view msg, const KVs* kvs = nullptr) {
    Entry e;
    e.time = std::chrono::time_point_cast<std::chrono::system_clock::duration>(kTime);
    e.pid = 12345;
    e.file = "/work/main/controller/kube/observe/resizer.cpp";
    e.line = 42;
    e.msg = msg;
    e.kvs = kvs;
    return e;
  }
};

TEST_F(LogEntryTest, TextHeaderLikeKlog) {
  KVs kvs{{"pod", kobj("kube-system", "kubedns")}, {"status", "ready"}};
  EXPECT_EQ(format_text(entry("Pod status updated", &kvs)),
            "I1122 00:20:21.123456   12345 resizer.cpp:42] \"Pod status updated\" "
            "pod=\"kube-system/kubedns\" status=\"ready\"\n");
}

TEST_F(LogEntryTest, TextSeverityLetters) {
  Entry e = entry("m");
  e.severity = Severity::Warning;
  EXPECT_EQ(format_text(e).substr(0, 1), "W");
  e.severity = Severity::Error;
  EXPECT_EQ(format_text(e).substr(0, 1), "E");
}

TEST_F(LogEntryTest, TextErrorComesFirst) {
  KVs kvs{{"count", 1}};
  Entry e = entry("test", &kvs);
  e.severity = Severity::Error;
  e.err = "fail";
  EXPECT_EQ(format_text(e),
            "E1122 00:20:21.123456   12345 resizer.cpp:42] \"test\" err=\"fail\" count=1\n");
}

TEST_F(LogEntryTest, TextValueKinds) {
  KVs kvs{{"i", -3},         {"u", 7u},          {"b", true},
          {"f", 0.25},       {"big", 1234567.0}, {"small", 0.00001},
          {"null", nullptr}, {"d", 90s},         {"name", kobj("", "node-1")}};
  EXPECT_EQ(format_text(entry("m", &kvs)),
            "I1122 00:20:21.123456   12345 resizer.cpp:42] \"m\" i=-3 u=7 b=true f=0.25 "
            "big=1.234567e+06 small=1e-05 null=<nil> d=\"1m30s\" name=\"node-1\"\n");
}

TEST_F(LogEntryTest, TextMultiLineValue) {
  KVs kvs{{"data", "line 1\nline 2"}, {"trailing", "a\n"}};
  EXPECT_EQ(format_text(entry("multi", &kvs)),
            "I1122 00:20:21.123456   12345 resizer.cpp:42] \"multi\" data=<\n"
            "\tline 1\n\tline 2\n >"
            " trailing=<\n\ta\n >\n");
}

TEST_F(LogEntryTest, TextMessageIsQuotedOnOneLine) {
  EXPECT_EQ(format_text(entry("say \"hi\"\nbye")),
            "I1122 00:20:21.123456   12345 resizer.cpp:42] \"say \\\"hi\\\"\\nbye\"\n");
}

TEST_F(LogEntryTest, JsonInfoLikeComponentBase) {
  KVs kvs{{"ns", "default"}, {"podnum", 2}};
  Entry e = entry("test", &kvs);
  e.verbosity = 2;
  EXPECT_EQ(format_json(e),
            "{\"ts\":1795306821123.4568,\"caller\":\"observe/resizer.cpp:42\",\"msg\":\"test\","
            "\"v\":2,\"ns\":\"default\",\"podnum\":2}\n");
}

TEST_F(LogEntryTest, JsonErrorHasNoVerbosityAndErrLast) {
  KVs kvs{{"count", 1}};
  Entry e = entry("wrong namespace", &kvs);
  e.severity = Severity::Error;
  e.err = "invalid namespace:default";
  EXPECT_EQ(format_json(e),
            "{\"ts\":1795306821123.4568,\"caller\":\"observe/resizer.cpp:42\","
            "\"msg\":\"wrong namespace\",\"count\":1,\"err\":\"invalid namespace:default\"}\n");
}

TEST_F(LogEntryTest, JsonContextPairsPrecedeVerbosity) {
  KVs context{{"controller", "resize"}};
  KVs kvs{{"pod", kobj("shop", "web-1")}, {"node", kobj("", "n1")}};
  Entry e = entry("m", &kvs);
  e.context = &context;
  EXPECT_EQ(format_json(e),
            "{\"ts\":1795306821123.4568,\"caller\":\"observe/resizer.cpp:42\",\"msg\":\"m\","
            "\"controller\":\"resize\",\"v\":0,\"pod\":{\"name\":\"web-1\",\"namespace\":\"shop\"},"
            "\"node\":{\"name\":\"n1\"}}\n");
}

TEST_F(LogEntryTest, JsonNumbersAndSpecialFloats) {
  KVs kvs{{"f", 1.5},
          {"nan", std::nan("")},
          {"inf", -std::numeric_limits<double>::infinity()},
          {"d", 1500us},
          {"b", false}};
  Entry e = entry("m", &kvs);
  e.time = std::chrono::system_clock::time_point{};
  EXPECT_EQ(format_json(e),
            "{\"ts\":0,\"caller\":\"observe/resizer.cpp:42\",\"msg\":\"m\",\"v\":0,\"f\":1.5,"
            "\"nan\":\"NaN\",\"inf\":\"-Inf\",\"d\":\"1.5ms\",\"b\":false}\n");
}

struct QuoteCase {
  std::string in, go, json;
};
void PrintTo(const QuoteCase& c, std::ostream* os) { *os << ::testing::PrintToString(c.in); }

class QuoteTest : public ::testing::TestWithParam<QuoteCase> {};

TEST_P(QuoteTest, MatchesGoAndZap) {
  EXPECT_EQ(go_quote(GetParam().in), GetParam().go);
  EXPECT_EQ(json_quote(GetParam().in), GetParam().json);
}

INSTANTIATE_TEST_SUITE_P(
    Escaping, QuoteTest,
    ::testing::Values(QuoteCase{"plain", "\"plain\"", "\"plain\""},
                      QuoteCase{"a\"b\\c", "\"a\\\"b\\\\c\"", "\"a\\\"b\\\\c\""},
                      QuoteCase{"l1\nl2\tx\r", "\"l1\\nl2\\tx\\r\"", "\"l1\\nl2\\tx\\r\""},
                      QuoteCase{std::string("\x01\x7f", 2), "\"\\x01\\x7f\"", "\"\\u0001\x7f\""},
                      QuoteCase{"\a\b\f\v", "\"\\a\\b\\f\\v\"", "\"\\u0007\\u0008\\u000c\\u000b\""},
                      QuoteCase{"caf\xC3\xA9 \xE2\x9C\x93 \xF0\x9F\x9A\x80",
                                "\"caf\xC3\xA9 \xE2\x9C\x93 \xF0\x9F\x9A\x80\"",
                                "\"caf\xC3\xA9 \xE2\x9C\x93 \xF0\x9F\x9A\x80\""},
                      QuoteCase{"1\xC2\xB5s", "\"1\xC2\xB5s\"", "\"1\xC2\xB5s\""},
                      // Invisible characters: no-break space, zero-width space, BOM.
                      QuoteCase{"\xC2\xA0\xE2\x80\x8B\xEF\xBB\xBF", "\"\\u00a0\\u200b\\ufeff\"",
                                "\"\xC2\xA0\xE2\x80\x8B\xEF\xBB\xBF\""},
                      QuoteCase{"\xF3\xB0\x80\x80", "\"\\U000f0000\"", "\"\xF3\xB0\x80\x80\""},
                      // Invalid UTF-8: a lone continuation byte, a truncated sequence.
                      QuoteCase{"a\x80z", "\"a\\x80z\"", "\"a\\ufffdz\""},
                      QuoteCase{"\xE2\x9C", "\"\\xe2\\x9c\"", "\"\\ufffd\\ufffd\""},
                      QuoteCase{"\xC0\xAF", "\"\\xc0\\xaf\"", "\"\\ufffd\\ufffd\""}));

}  // namespace
}  // namespace tailor::kube::log
