#pragma once

#include <string>
#include <vector>

#include "recommender/resources.h"
#include "recommender/strategy.h"
#include "recommender/trace.h"

namespace tailor::recommender {

// The replay's constants (docs/scoring.md, section 3).
struct ReplayConfig {
  Seconds warm_up = kDay;      // replayed, not scored
  Seconds max_gap = kHour;     // longer absences restart the pod
  MinResources min_resources;  // applied to every row
};

// Sums over one container's scored windows (docs/scoring.md, section 4).
struct ContainerScore {
  std::string container;
  double cpu_request = 0, cpu_slack = 0, cpu_p95 = 0, cpu_short = 0;
  double mem_request = 0, mem_slack = 0;              // windows with a memory sample only
  double cpu_request_time = 0, mem_request_time = 0;  // Σ req·Δ over all scored windows
  long scored_windows = 0;
  long ooms = 0;
  long resizes = 0;
  double days = 0;
  std::size_t state_bytes = 0;  // strategy state at the end of the replay
};

// One row of the table: per-container figures averaged over containers, and the slack pooled
// over all containers and windows (docs/scoring.md, "The figures": Σ max(0, req − usage) / Σ req
// over every container and window, so each container weighs by its request, as a cluster's bill
// does; the mean gives a container held at the minimums as much weight as a 4-core one).
struct ScoreRow {
  std::string strategy;
  std::string update_rule;
  double cpu_slack = 0, mem_slack = 0, cpu_shortfall = 0;
  double cpu_slack_weighted = 0, mem_slack_weighted = 0;
  double ooms_per_day = 0, resizes_per_day = 0, cost = 0;
  int containers = 0;
  std::vector<ContainerScore> per_container;
};

// A point of a container's replay, for plots: the window's usage, the requests it ran with, and
// the strategy's target at the window's end, after it saw the window.
struct TimelinePoint {
  Seconds time;
  double cpu_usage, memory_usage, cpu_request, memory_request;
  Resources target{};
};

// The trace's own limits (floored at the minimum resources), never changed.
ContainerScore replay_as_run(const ContainerSeries& s, const ReplayConfig& config);
ContainerScore replay_strategy(const ContainerSeries& s, const StrategyFactory& factory,
                               const ReplayConfig& config,
                               std::vector<TimelinePoint>* timeline = nullptr);

// Averages per-container scores; cost is relative to `as_run` (same containers, same order).
ScoreRow summarize(const std::string& strategy, const std::string& update_rule,
                   std::vector<ContainerScore> scores, const std::vector<ContainerScore>& as_run);

// The whole table: as-run first, then each strategy, all over the same series.
std::vector<ScoreRow> replay_table(const std::vector<ContainerSeries>& series,
                                   const std::vector<const StrategyFactory*>& strategies,
                                   const ReplayConfig& config = {});

}  // namespace tailor::recommender
