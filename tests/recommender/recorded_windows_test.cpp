#include "recommender/recorded_windows.h"

#include <gtest/gtest.h>

#include <sstream>

namespace tailor::recommender {
namespace {

std::vector<ContainerSeries> parse(const std::string& text, TraceDiagnostics& diag) {
  std::istringstream in(text);
  std::vector<ContainerSeries> out;
  read_trace_stream(in, "rec.csv", out, diag);
  return out;
}

void expect_same(const TraceWindow& a, const TraceWindow& b, const std::string& where) {
  EXPECT_EQ(a.start, b.start) << where;
  EXPECT_EQ(a.avg_cpu, b.avg_cpu) << where;  // exactly: the CSV holds 17 digits
  EXPECT_EQ(a.max_cpu, b.max_cpu) << where;
  EXPECT_EQ(a.p95_cpu, b.p95_cpu) << where;
  EXPECT_EQ(a.max_mem, b.max_mem) << where;
}

TEST(RecordedWindows, RoundTripReadsTheFoldOfWhatWasWritten) {
  std::vector<RecordedWindow> recorded;
  for (std::int64_t i = 0; i < 100; ++i) {
    const std::int64_t start = 1'700'000'007'000 + i * 15'000;  // not aligned to periods
    recorded.push_back({"web,app",
                        {start, start + 10'000, 0.1 * (i % 7) + 1.0 / 3, 0.2 * (i % 5) + 0.7,
                         1e8 + 12345.678 * i}});
    recorded.push_back({"db", {start + 3, start + 14'000, 2.0 / 3, 2.0 / 3, 0}});
  }
  std::ostringstream out;
  write_recorded_windows(out, recorded);
  TraceDiagnostics d;
  auto series = parse(out.str(), d);
  EXPECT_EQ(d.rows_read, recorded.size());
  EXPECT_EQ(d.rows_rejected, 0u) << (d.messages.empty() ? "" : d.messages.front());
  ASSERT_EQ(series.size(), 2u);
  for (std::size_t k = 0; k < 2; ++k) {
    const ContainerSeries& s = series[k];
    EXPECT_EQ(s.container, k == 0 ? "web,app" : "db");
    EXPECT_EQ(s.window, kSamplePeriod);
    EXPECT_FALSE(s.has_limits);
    SamplePeriodFold fold;
    std::vector<TraceWindow> want;
    for (std::size_t i = k; i < recorded.size(); i += 2) {
      for (const TraceWindow& w : fold.fold(recorded[i].window)) want.push_back(w);
    }
    if (auto last = fold.close()) want.push_back(*last);
    ASSERT_EQ(s.windows.size(), want.size()) << s.container;
    ASSERT_GE(want.size(), 5u);  // 25 minutes of windows: straddled boundaries, partial ends
    for (std::size_t i = 0; i < want.size(); ++i) {
      expect_same(s.windows[i], want[i], s.container + " period " + std::to_string(i));
    }
  }
}

TEST(RecordedWindows, RejectsBadRowsWithWhereAndWhy) {
  TraceDiagnostics d;
  auto s = parse(
      "container,start_unix_ms,end_unix_ms,cpu_cores_mean,cpu_cores_max,memory_peak_bytes\n"
      "a,1000,16000,1,2,100\n"
      "a,16000,16000,1,2,100\n"
      "a,20000,31000,nan,2,100\n"
      "a,10000,12000,1,2,100\n"
      "a,31000.5,40000,1,2,100\n"
      "a,31000,40000,one,2,100\n"
      "a,31000,40000,1,2,-1\n"
      "a,31000,40000\n"
      "a,31000,46000,3,4,200\n",
      d);
  EXPECT_EQ(d.rows_read, 9u);
  EXPECT_EQ(d.rows_rejected, 7u);
  const std::vector<std::string> want = {
      "rec.csv:3: rejected: usage window: duration must be positive",
      "rec.csv:4: rejected: usage window: mean CPU is not a number",
      "rec.csv:5: rejected: usage window: ends at 12000 ms, not after the previous window's end",
      "rec.csv:6: rejected: column 'start_unix_ms' is not a whole number of ms: '31000.5'",
      "rec.csv:7: rejected: column 'cpu_cores_mean' is not a number: 'one'",
      "rec.csv:8: rejected: usage window: memory peak is negative",
      "rec.csv:9: rejected: has 3 fields, header has 6"};
  ASSERT_EQ(d.messages.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(d.messages[i].rfind(want[i], 0), 0u) << d.messages[i];
  }
  ASSERT_EQ(s.size(), 1u);
  ASSERT_EQ(s[0].windows.size(), 1u);  // the good rows, one period
  EXPECT_NEAR(s[0].windows[0].avg_cpu, (15 * 1 + 15 * 3) / 30.0, 1e-12);
  EXPECT_EQ(s[0].windows[0].max_cpu, 4);
  EXPECT_EQ(s[0].windows[0].max_mem, 200);
}

TEST(RecordedWindows, HeaderLackingAColumnIsAnError) {
  TraceDiagnostics d;
  try {
    parse("container,start_unix_ms,end_unix_ms,cpu_cores_mean,memory_peak_bytes\n", d);
    FAIL() << "accepted";
  } catch (const TraceError& e) {
    EXPECT_STREQ(e.what(), "rec.csv: recording header lacks required column 'cpu_cores_max'");
  }
}

}  // namespace
}  // namespace tailor::recommender
