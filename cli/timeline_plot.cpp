#include "cli/timeline_plot.h"

#include "recommender/replay.h"
#include "recommender/timeline_svg.h"

namespace tailor::cli {

void write_strategy_timelines(std::ostream& out, const recommender::ContainerSeries& series,
                              const std::vector<const recommender::StrategyFactory*>& strategies) {
  recommender::ReplayConfig config;
  std::vector<recommender::NamedTimeline> runs;
  for (const auto* f : strategies) {
    runs.emplace_back(f->name(), std::vector<recommender::TimelinePoint>{});
    recommender::replay_strategy(series, *f, config, &runs.back().second);
  }
  recommender::write_timeline_svg(out, series.container, runs, {series.window, config.max_gap});
}

}  // namespace tailor::cli
