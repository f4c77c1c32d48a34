#include "controller/app/usage_recorder.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include "controller/app/measured_window.h"
#include "recommender/trace.h"

namespace tailor::controller {
namespace {

namespace fs = std::filesystem;
namespace rec = recommender;

class UsageRecorderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "tailor-recorder-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }

  static usage::UsageWindow agent(const std::string& pod, std::int64_t start_ms, double cpu) {
    return {.node = "node-1",
            .ns = "shop",
            .pod = pod,
            .pod_uid = "uid-" + pod,
            .container = "app",
            .start_unix_ms = start_ms,
            .end_unix_ms = start_ms + 10'000,
            .samples = 3,
            .cpu_cores_mean = cpu,
            .cpu_cores_max = 2 * cpu,
            .memory_working_set_max_bytes = 3e8,
            .memory_peak_bytes = 3.1e8};
  }

  fs::path dir_;
};

TEST_F(UsageRecorderTest, ReplayReadsWhatWasRecordedFoldedAsLive) {
  const std::string path = (dir_ / "usage.csv").string();
  std::vector<usage::UsageWindow> windows;
  for (std::int64_t i = 0; i < 60; ++i) {
    windows.push_back(agent("web-0", 1'800'000'003'000 + i * 15'000, 0.1 + 0.01 * i));
    windows.push_back(agent("web-1", 1'800'000'005'000 + i * 15'000, 1.0 / 3));
  }
  {
    UsageRecorder first(path);
    for (std::size_t i = 0; i < windows.size() / 2; ++i) first.record(windows[i]);
  }
  {
    // A restarted controller appends to the same recording, with no second header; two gRPC
    // threads (one per agent) record at once.
    UsageRecorder second(path);
    std::thread a([&] {
      for (std::size_t i = windows.size() / 2; i < windows.size(); i += 2)
        second.record(windows[i]);
    });
    for (std::size_t i = windows.size() / 2 + 1; i < windows.size(); i += 2) {
      second.record(windows[i]);
    }
    a.join();
  }
  rec::TraceDiagnostics diag;
  const std::vector<rec::ContainerSeries> series = rec::read_traces({path}, diag);
  EXPECT_EQ(diag.rows_read, windows.size());
  EXPECT_EQ(diag.rows_rejected, 0u) << (diag.messages.empty() ? "" : diag.messages.front());
  ASSERT_EQ(series.size(), 2u);
  for (const rec::ContainerSeries& s : series) {
    const std::string pod = s.container == "shop/web-0/uid-web-0/app" ? "web-0" : "web-1";
    EXPECT_EQ(s.container, "shop/" + pod + "/uid-" + pod + "/app");
    rec::SamplePeriodFold fold;
    std::vector<rec::TraceWindow> want;
    for (const usage::UsageWindow& w : windows) {
      if (w.pod != pod) continue;
      for (const rec::TraceWindow& p : fold.fold(measured_window(w))) want.push_back(p);
    }
    if (auto last = fold.close()) want.push_back(*last);
    ASSERT_EQ(s.windows.size(), want.size()) << pod;
    for (std::size_t i = 0; i < want.size(); ++i) {
      EXPECT_EQ(s.windows[i].start, want[i].start) << pod << " " << i;
      EXPECT_EQ(s.windows[i].avg_cpu, want[i].avg_cpu) << pod << " " << i;
      EXPECT_EQ(s.windows[i].max_cpu, want[i].max_cpu) << pod << " " << i;
      EXPECT_EQ(s.windows[i].max_mem, 3.1e8) << pod << " " << i;
    }
  }
}

TEST_F(UsageRecorderTest, UnwritablePathIsAClearError) {
  const std::string path = (dir_ / "missing" / "usage.csv").string();
  try {
    UsageRecorder r(path);
    FAIL() << "opened " << path;
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "--record-usage: cannot open " + path + " for appending");
  }
}

}  // namespace
}  // namespace tailor::controller
