#include "cli/history_whatif.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "cli/report_output.h"
#include "recommender/strategy.h"

namespace tailor::cli {
namespace {

namespace rec = tailor::recommender;
using controller::usage::UsageWindow;

constexpr double kMi = 1024.0 * 1024.0;
constexpr std::int64_t kStartMs = 1'700'000'000'000;

UnpolicedWorkload web() {
  return {.ns = "shop",
          .kind = "Deployment",
          .name = "web",
          .pods = {"web-a", "web-b"},
          .requests = {{"app", {0.5, 256 * kMi}}}};
}

// Five-minute windows for `hours`, newest first (the order must not matter), CPU swinging
// with the hour of day and memory creeping up.
std::vector<UsageWindow> windows(const std::string& ns, const std::string& pod, int hours) {
  std::vector<UsageWindow> out;
  for (int i = hours * 12 - 1; i >= 0; --i) {
    const double cpu = 0.1 + 0.05 * ((i / 12) % 24 < 12 ? 1 : 3);
    out.push_back({.ns = ns,
                   .pod = pod,
                   .container = "app",
                   .start_unix_ms = kStartMs + i * 300'000LL,
                   .end_unix_ms = kStartMs + (i + 1) * 300'000LL,
                   .cpu_cores_mean = cpu,
                   .cpu_cores_max = cpu * 1.5,
                   .memory_working_set_max_bytes = (100 + i / 60.0) * kMi,
                   .memory_peak_bytes = (100 + i / 60.0) * kMi});
  }
  return out;
}

TEST(WorkloadRecording, TheWorkloadsPodsOnlyInTimeOrder) {
  std::vector<UsageWindow> all = windows("shop", "web-a", 2);
  for (const auto& w : windows("shop", "other-x", 2)) all.push_back(w);  // not its pod
  for (const auto& w : windows("dev", "web-b", 2)) all.push_back(w);     // not its namespace
  const auto recording = workload_recording(web(), all);
  ASSERT_EQ(recording.size(), 24u);
  for (std::size_t i = 0; i < recording.size(); ++i) {
    EXPECT_EQ(recording[i].container, "web-a/app");
    EXPECT_EQ(recording[i].window.start_ms, kStartMs + static_cast<std::int64_t>(i) * 300'000);
  }
}

TEST(ReplayWorkload, EqualsTailorReplayOnTheSameRecording) {
  std::vector<UsageWindow> all = windows("shop", "web-a", 60);
  for (const auto& w : windows("shop", "web-b", 60)) all.push_back(w);
  const WhatIfRow row = replay_workload(web(), all);
  EXPECT_EQ(row.note, "");
  EXPECT_EQ(row.series, 2u);
  ASSERT_EQ(row.rows.size(), 3u);
  EXPECT_EQ(row.rows[0].strategy, "as-run");
  EXPECT_EQ(row.rows[1].strategy, "vpa");
  EXPECT_EQ(row.rows[2].strategy, "default");

  // What `tailor replay` makes of the recording as a file: the same strategies' rows.
  std::stringstream file;
  rec::write_recorded_windows(file, row.recording);
  std::string header;
  std::getline(file, header);
  std::vector<std::string_view> columns;
  for (std::size_t at = 0, comma;; at = comma + 1) {
    comma = header.find(',', at);
    columns.push_back(std::string_view(header).substr(at, comma - at));
    if (comma == std::string::npos) break;
  }
  std::vector<rec::ContainerSeries> series;
  rec::TraceDiagnostics diag;
  rec::read_recording(file, columns, "file", series, diag);
  auto vpa = rec::make_strategy("vpa"), tailored = rec::make_strategy("default");
  const auto replayed = rec::replay_table(series, {vpa.get(), tailored.get()});
  for (std::size_t i = 1; i < 3; ++i) {
    SCOPED_TRACE(row.rows[i].strategy);
    EXPECT_EQ(row.rows[i].containers, replayed[i].containers);
    EXPECT_DOUBLE_EQ(row.rows[i].cpu_slack, replayed[i].cpu_slack);
    EXPECT_DOUBLE_EQ(row.rows[i].mem_slack, replayed[i].mem_slack);
    EXPECT_DOUBLE_EQ(row.rows[i].cpu_shortfall, replayed[i].cpu_shortfall);
    EXPECT_DOUBLE_EQ(row.rows[i].ooms_per_day, replayed[i].ooms_per_day);
    EXPECT_DOUBLE_EQ(row.rows[i].resizes_per_day, replayed[i].resizes_per_day);
  }
  // The as-run holds the pods' sizing: 0.5 core for at most 0.25 used, so it has slack.
  EXPECT_GT(row.rows[0].cpu_slack, 0);
  EXPECT_EQ(row.rows[0].ooms_per_day, 0);
}

TEST(ReplayWorkload, SaysWhyThereIsNothingToScore) {
  EXPECT_EQ(replay_workload(web(), {}).note, "no history in Prometheus");
  const WhatIfRow short_history = replay_workload(web(), windows("shop", "web-a", 6));
  EXPECT_EQ(short_history.note, "no history past the 24 h warm-up");
  EXPECT_TRUE(short_history.rows.empty());
}

TEST(WhatIfHtml, ATablePerWorkloadAndItsPlotsInline) {
  std::vector<UsageWindow> all = windows("shop", "web-a", 60);
  for (const auto& w : windows("shop", "web-b", 60)) all.push_back(w);
  UnpolicedWorkload odd = web();
  odd.name = "<b>&";
  const WhatIfRow plotted = replay_workload(web(), all, true);
  ASSERT_EQ(plotted.plots.size(), 2u);  // one per series
  EXPECT_TRUE(replay_workload(web(), all).plots.empty());
  std::ostringstream out;
  write_whatif_html(out, {plotted, replay_workload(odd, {}, true)});
  const std::string html = out.str();
  EXPECT_NE(html.find("<h3>shop/Deployment/web</h3>"), std::string::npos);
  EXPECT_NE(html.find("<h3>shop/Deployment/&lt;b&gt;&amp;</h3>"), std::string::npos);
  EXPECT_NE(html.find("<p>2 pods, 0 series: no history in Prometheus</p>"), std::string::npos);
  std::size_t svgs = 0;
  for (std::size_t at = html.find("<svg"); at != std::string::npos; at = html.find("<svg", at + 1))
    ++svgs;
  EXPECT_EQ(svgs, 2u);
  for (const char* strategy : {"as-run", "vpa", "default"}) {
    EXPECT_NE(html.find(std::string("<tr><td>") + strategy + "</td>"), std::string::npos);
  }
}

TEST(ProgressBar, FillsAndEndsTheLine) {
  EXPECT_EQ(progress_bar(0, 4), "\r[" + std::string(40, '.') + "] 0/4 pages");
  EXPECT_EQ(progress_bar(1, 4),
            "\r[" + std::string(10, '#') + std::string(30, '.') + "] 1/4 pages");
  EXPECT_EQ(progress_bar(4, 4), "\r[" + std::string(40, '#') + "] 4/4 pages\n");
}

TEST(WhatIfTable, FitsOneHundredColumns) {
  std::vector<UsageWindow> all = windows("shop", "web-a", 60);
  UnpolicedWorkload wide = web();
  wide.name = std::string(200, 'w');
  std::ostringstream out;
  print_whatif_table(out, {replay_workload(web(), all), replay_workload(wide, {})});
  std::istringstream lines(out.str());
  int n = 0;
  for (std::string l; std::getline(lines, l); ++n) EXPECT_LE(l.size(), kTableWidth) << l;
  EXPECT_EQ(n, 3 + 4 + 2) << out.str();  // blank, title, header; 1 + 3 rows; 1 + note
}

}  // namespace
}  // namespace tailor::cli
