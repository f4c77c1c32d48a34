// One container's usage and the requests each strategy would have set, as the SVG
// recommender/timeline_svg.h draws: `tailor replay --plot-dir` writes them to files, `tailor
// report --all -o html` puts them in its page.
#pragma once

#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "recommender/strategy.h"
#include "recommender/trace.h"

namespace tailor::cli {

void write_strategy_timelines(std::ostream& out, const recommender::ContainerSeries& series,
                              const std::vector<const recommender::StrategyFactory*>& strategies);

}  // namespace tailor::cli
