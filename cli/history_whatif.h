// `tailor report --all`: workloads no policy acts on, recommended from their Prometheus history
// (the queries of tailor-controller's --storage=prometheus) by replaying it through each
// strategy as `tailor replay` does: what VPA would have done, what Tailor's default would have
// done, and the as-run (the pods' current sizing held through the history).
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "cli/workload_report.h"
#include "controller/usage/prometheus_history.h"
#include "recommender/recorded_windows.h"
#include "recommender/replay.h"

namespace tailor::cli {

struct WhatIfRow {
  UnpolicedWorkload workload{};
  // The history read, as a recording `tailor replay` reads (one container "pod/container" per
  // series): --save-history writes it, so that the replay can be run again, and differently.
  std::vector<recommender::RecordedWindow> recording{};
  std::size_t series = 0;                     // (pod, container) series with history
  std::vector<recommender::ScoreRow> rows{};  // as-run, vpa, default; empty: nothing to score
  std::string note{};                         // why there is nothing to score
  // With plots: per series (the first kMaxPlots), its usage and each strategy's requests as SVG.
  std::vector<std::string> plots{};
};
inline constexpr std::size_t kMaxPlots = 4;

// Pure: the workload's windows (any order) as a recording, each "pod/container" in time order.
std::vector<recommender::RecordedWindow> workload_recording(
    const UnpolicedWorkload& workload, const std::vector<controller::usage::UsageWindow>& windows);
// One replay series per "pod/container" of the recording, folded as `tailor replay` folds a
// recording.
std::vector<recommender::ContainerSeries> workload_series(
    const std::vector<recommender::RecordedWindow>& recording);
// The series with each container's current sizing held as its limits (the as-run's).
std::vector<recommender::ContainerSeries> as_run_series(
    const UnpolicedWorkload& workload, std::vector<recommender::ContainerSeries> series);
// The rows: vpa and default replayed on the history as `tailor replay` replays the recording
// (so they equal its rows), the as-run at the pods' current sizing.
WhatIfRow replay_workload(const UnpolicedWorkload& workload,
                          const std::vector<controller::usage::UsageWindow>& windows,
                          bool plots = false);

// Reads the history before until_s and replays every workload. `on_page(done, total)` is told
// of each page read. Throws std::runtime_error when Prometheus cannot be read.
std::vector<WhatIfRow> replay_from_prometheus(
    const std::vector<UnpolicedWorkload>& workloads,
    const controller::usage::PrometheusHistoryOptions& options, std::int64_t until_s,
    const std::function<void(std::size_t, std::size_t)>& on_page, bool plots = false);

// "\r[#######.............] 3/8 pages" (40 columns of bar); a newline when done == total.
std::string progress_bar(std::size_t done, std::size_t total);

void print_whatif_table(std::ostream& out, const std::vector<WhatIfRow>& rows);
// The page's section: a table per workload and its plots inline.
void write_whatif_html(std::ostream& out, const std::vector<WhatIfRow>& rows);
// ,"replayed":[...] members for the report's JSON object (without the leading comma).
void write_whatif_json(std::ostream& out, const std::vector<WhatIfRow>& rows);

}  // namespace tailor::cli
