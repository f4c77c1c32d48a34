#include "recommender/trace.h"

#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <cstdio>
#include <fstream>
#include <sstream>

namespace tailor::recommender {
namespace {

std::vector<ContainerSeries> parse(const std::string& text, TraceDiagnostics& diag) {
  std::istringstream in(text);
  std::vector<ContainerSeries> out;
  read_trace_stream(in, "t.csv", out, diag);
  return out;
}

TEST(GenericTrace, ReadsInterleavedContainersWithFallbacks) {
  TraceDiagnostics d;
  auto s = parse(
      "time_s,container,cpu_cores,memory_bytes\n"
      "0,a,0.5,1000000\n0,b,1.5,2000000\n60,a,0.25,3000000\n60,b,1,2000000\n120,a,0.5,1\n",
      d);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].container, "a");
  EXPECT_EQ(s[0].window, 60);
  EXPECT_FALSE(s[0].has_limits);
  ASSERT_EQ(s[0].windows.size(), 3u);
  EXPECT_DOUBLE_EQ(s[0].windows[1].max_cpu, 0.25);  // max and p95 fall back to the mean
  EXPECT_DOUBLE_EQ(s[0].windows[1].p95_cpu, 0.25);
  EXPECT_DOUBLE_EQ(s[0].windows[1].max_mem, 3000000);
  EXPECT_EQ(d.rows_rejected, 0u);
}

TEST(GenericTrace, RejectsBadLinesWithWhereAndWhy) {
  TraceDiagnostics d;
  auto s = parse(
      "time_s,container,cpu_cores,memory_bytes\n"
      "0,a,0.5,100\n"
      "60,a,nan,100\n"    // not finite
      "60,a,-0.5,100\n"   // negative
      "60,a,1e9,100\n"    // absurd
      "60,a,0.5\n"        // short line
      "60,a,abc,100\n"    // not a number
      "0,a,0.5,100\n"     // out of order
      "\"60,a,0.5,100\n"  // unterminated quote
      "120,a,0.5,100\n",
      d);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].windows.size(), 2u);
  EXPECT_EQ(d.rows_rejected, 7u);
  ASSERT_GE(d.messages.size(), 7u);
  EXPECT_EQ(d.messages[0], "t.csv:3: rejected: column 'cpu_cores' is not finite");
  EXPECT_EQ(d.messages[1], "t.csv:4: rejected: column 'cpu_cores' is negative");
  EXPECT_EQ(d.messages[2], "t.csv:5: rejected: column 'cpu_cores' is implausibly large");
  EXPECT_EQ(d.messages[3], "t.csv:6: rejected: has 3 fields, header has 4");
  EXPECT_NE(d.messages[5].find("not after the container's previous row"), std::string::npos);
}

TEST(GenericTrace, FarFutureRowIsRejectedWithoutLosingTheRest) {
  TraceDiagnostics d;
  auto s = parse(
      "time_s,container,cpu_cores,memory_bytes\n"
      "0,a,0.5,100\n"
      "90000000000,a,0.5,100\n"  // ~2850 years later: corrupt
      "60,a,0.5,100\n"
      "120,a,0.5,100\n",
      d);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].windows.size(), 3u);
  EXPECT_EQ(d.rows_rejected, 1u);
  EXPECT_NE(d.messages[0].find("more than a year after"), std::string::npos) << d.messages[0];
}

TEST(GenericTrace, MissingColumnOrOneLimitIsAnError) {
  TraceDiagnostics d;
  EXPECT_THROW(parse("time_s,container,cpu_cores\n", d), TraceError);
  EXPECT_THROW(parse("time_s,container,cpu_cores,memory_bytes,cpu_limit_cores\n", d), TraceError);
  EXPECT_THROW(parse("", d), TraceError);
  EXPECT_THROW(parse("\x01\x02garbage\n", d), TraceError);
  try {
    parse("time_s,container,memory_bytes\n", d);
    FAIL();
  } catch (const TraceError& e) {
    EXPECT_STREQ(e.what(), "t.csv: header lacks required column 'cpu_cores'");
  }
}

TEST(GenericTrace, ClampsInconsistentWindows) {
  TraceDiagnostics d;
  auto s = parse(
      "time_s,container,cpu_cores,memory_bytes,max_cpu_cores,p95_cpu_cores,max_memory_bytes,"
      "cpu_limit_cores,memory_limit_bytes\n"
      "0,a,1.0,100,0.5,2.0,50,2,1000\n",
      d);
  ASSERT_EQ(s[0].windows.size(), 1u);
  const TraceWindow& w = s[0].windows[0];
  EXPECT_DOUBLE_EQ(w.max_cpu, 1.0);
  EXPECT_DOUBLE_EQ(w.p95_cpu, 1.0);
  EXPECT_DOUBLE_EQ(w.max_mem, 100);
  EXPECT_TRUE(s[0].has_limits);
  EXPECT_EQ(d.values_clamped, 3u);
}

TEST(GoogleTrace, ScalesUnitsAndTreatsMinusOnePercentileAsMissing) {
  TraceDiagnostics d;
  auto s = parse(
      "time,unique_id,avg_cpu_usage,avg_memory_usage,max_cpu_usage,max_memory_usage,"
      "p95_cpu_usage,memory_limit,cpu_limit\n"
      "300000000,j-1,0.01,0.001,0.02,0.002,0.015,0.004,0.03\n"
      "600000000,j-1,0.0,0.001,0.0,0.002,-1.0,0.004,0.03\n",
      d);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].container, "j-1");
  EXPECT_EQ(s[0].window, 300);
  EXPECT_TRUE(s[0].has_limits);
  const TraceWindow& w = s[0].windows[0];
  EXPECT_EQ(w.start, 300);
  EXPECT_DOUBLE_EQ(w.avg_cpu, 1.0);  // 0.01 NCU = 1 core
  EXPECT_DOUBLE_EQ(w.p95_cpu, 1.5);
  EXPECT_DOUBLE_EQ(w.max_mem, 0.002 * kGoogleMemoryBytes);
  EXPECT_DOUBLE_EQ(w.cpu_limit, 3.0);
  EXPECT_DOUBLE_EQ(s[0].windows[1].p95_cpu, 0.0);  // falls back to max
  EXPECT_EQ(d.rows_rejected, 0u);
}

TEST(Traces, MissingFileIsAClearError) {
  TraceDiagnostics d;
  try {
    read_traces({"/nonexistent/trace.csv"}, d);
    FAIL();
  } catch (const TraceError& e) {
    EXPECT_STREQ(e.what(), "/nonexistent/trace.csv: cannot open for reading");
  }
}

}  // namespace
}  // namespace tailor::recommender

namespace tailor::recommender {
namespace {

std::string temp_path(const std::string& name) {
  return ::testing::TempDir() + "/" + name + std::to_string(::getpid());
}

TEST(Traces, ReadsGzipCompressedTraces) {
  const std::string path = temp_path("trace") + ".csv.gz";
  gzFile f = gzopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  const std::string text = "time_s,container,cpu_cores,memory_bytes\n0,a,0.5,100\n60,a,1,200\n";
  gzwrite(f, text.data(), static_cast<unsigned>(text.size()));
  gzclose(f);
  TraceDiagnostics d;
  auto s = read_traces({path}, d);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].windows.size(), 2u);
  std::remove(path.c_str());
}

TEST(Traces, CorruptGzipIsAClearError) {
  const std::string path = temp_path("corrupt") + ".csv.gz";
  {
    std::ofstream out(path, std::ios::binary);
    out << "\x1f\x8b\x08\x00garbage that is not deflate data";
  }
  TraceDiagnostics d;
  try {
    read_traces({path}, d);
    FAIL() << "corrupt gzip accepted";
  } catch (const TraceError& e) {
    EXPECT_NE(std::string(e.what()).find(path + ": corrupt gzip data"), std::string::npos)
        << e.what();
  }
  std::remove(path.c_str());
}

}  // namespace
}  // namespace tailor::recommender
