#include "kube/observe/log.h"

#include <gtest/gtest.h>

#include <mutex>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

namespace tailor::kube::log {
namespace {

// Collects the lines a logger writes.
struct Capture {
  std::mutex mu;
  std::vector<std::string> lines;
  Options options(Format format, int verbosity) {
    Options o;
    o.format = format;
    o.verbosity = verbosity;
    o.output = [this](std::string_view line) {
      std::lock_guard lock(mu);
      lines.emplace_back(line);
    };
    o.clock = [] { return std::chrono::system_clock::time_point{}; };
    o.pid = 7;
    return o;
  }
};

std::string caller(int line) {
  return "\"caller\":\"observe/log_test.cpp:" + std::to_string(line) + "\"";
}

TEST(LoggerTest, VerbosityGatesInfoLikeKlog) {
  for (int threshold = 0; threshold <= 4; ++threshold) {
    Capture cap;
    Logger logger(cap.options(Format::Json, threshold));
    for (int level = 0; level <= 4; ++level) {
      EXPECT_EQ(logger.v(level).enabled(), level <= threshold);
      logger.v(level).info("probe");
    }
    EXPECT_EQ(cap.lines.size(), static_cast<std::size_t>(threshold + 1));
  }
}

TEST(LoggerTest, JsonLineCarriesCallerAndVerbosity) {
  Capture cap;
  Logger logger(cap.options(Format::Json, 3));
  int line = __LINE__ + 1;
  logger.v(2).info("Resized pod", {{"pod", kobj("shop", "web-1")}, {"cpu", "250m"}});
  ASSERT_EQ(cap.lines.size(), 1u);
  EXPECT_EQ(cap.lines[0], "{\"ts\":0," + caller(line) +
                              ",\"msg\":\"Resized pod\",\"v\":2,\"pod\":{\"name\":\"web-1\","
                              "\"namespace\":\"shop\"},\"cpu\":\"250m\"}\n");
}

TEST(LoggerTest, ErrorsNeverFilteredAndCarryErr) {
  Capture cap;
  Logger logger(cap.options(Format::Json, 0));
  int line = __LINE__ + 1;
  logger.error(std::runtime_error("connection refused"), "Patch failed", {{"attempt", 3}});
  logger.error(std::make_error_code(std::errc::timed_out), "Watch ended");
  logger.error("No error value");
  ASSERT_EQ(cap.lines.size(), 3u);
  EXPECT_EQ(cap.lines[0], "{\"ts\":0," + caller(line) +
                              ",\"msg\":\"Patch failed\",\"attempt\":3,"
                              "\"err\":\"connection refused\"}\n");
  EXPECT_NE(cap.lines[1].find(",\"err\":\"Connection timed out\"}"), std::string::npos);
  EXPECT_EQ(cap.lines[2].find("\"err\""), std::string::npos);
}

TEST(LoggerTest, TextOutputAndWarning) {
  setenv("TZ", "UTC", 1);
  tzset();
  Capture cap;
  Logger logger(cap.options(Format::Text, 0));
  int line = __LINE__ + 1;
  logger.warning("Deferred too long", {{"pod", kobj("shop", "web-1")}});
  ASSERT_EQ(cap.lines.size(), 1u);
  EXPECT_EQ(cap.lines[0], "W0101 00:00:00.000000       7 log_test.cpp:" + std::to_string(line) +
                              "] \"Deferred too long\" pod=\"shop/web-1\"\n");
}

TEST(LoggerTest, WithValuesAddsContextAndSharesOutput) {
  Capture cap;
  Logger root(cap.options(Format::Json, 0));
  Logger ctrl = root.with_values({{"controller", "resize"}});
  Logger worker = ctrl.with_values({{"worker", 2}});
  worker.info("tick");
  root.set_verbosity(1);  // shared with derived loggers
  worker.v(1).info("verbose tick");
  ASSERT_EQ(cap.lines.size(), 2u);
  EXPECT_NE(cap.lines[0].find("\"msg\":\"tick\",\"controller\":\"resize\",\"worker\":2,\"v\":0}"),
            std::string::npos)
      << cap.lines[0];
  EXPECT_NE(cap.lines[1].find("\"v\":1"), std::string::npos);
}

TEST(LoggerTest, ConfigureSwitchesFormat) {
  Capture cap;
  Logger logger(cap.options(Format::Json, 0));
  EXPECT_EQ(logger.format(), Format::Json);
  logger.configure(cap.options(Format::Text, 0));
  logger.info("now text");
  ASSERT_EQ(cap.lines.size(), 1u);
  EXPECT_EQ(cap.lines[0][0], 'I');
}

TEST(LoggerTest, ConcurrentWritersProduceWholeLines) {
  Capture cap;
  Logger logger(cap.options(Format::Json, 0));
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) logger.info("line", {{"t", t}, {"i", i}});
    });
  }
  for (auto& th : threads) th.join();
  ASSERT_EQ(cap.lines.size(), 800u);
  for (const auto& l : cap.lines) {
    EXPECT_EQ(l.front(), '{');
    EXPECT_EQ(l.substr(l.size() - 2), "}\n");
  }
}

TEST(LoggerTest, GlobalFreeFunctions) {
  Capture cap;
  configure(cap.options(Format::Json, 1));
  info("global");
  v(1).info("v1");
  v(2).info("dropped");
  error(std::runtime_error("boom"), "failed");
  configure(Options{});  // back to standard error for other tests
  ASSERT_EQ(cap.lines.size(), 3u);
  EXPECT_NE(cap.lines[2].find("\"err\":\"boom\""), std::string::npos);
}

TEST(LogFormatTest, ParsesNamesAndRejectsOthers) {
  EXPECT_EQ(parse_format("text"), Format::Text);
  EXPECT_EQ(parse_format("json"), Format::Json);
  EXPECT_EQ(format_name(Format::Json), "json");
  try {
    parse_format("yaml");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "unknown log format \"yaml\" (supported: text, json)");
  }
}

}  // namespace
}  // namespace tailor::kube::log
