#pragma once

#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

#include "recommender/replay.h"

namespace tailor::recommender {

// How the replay cut the trace into windows and pods, so the plot can show each window's span
// and break its lines where the container was not running (a gap over max_gap, docs/scoring.md
// section 3.1).
struct TimelineShape {
  Seconds window = 300;
  Seconds max_gap = kHour;
};

using NamedTimeline = std::pair<std::string, std::vector<TimelinePoint>>;

// One SVG: usage (of the first run) and each run's requests over time, CPU above memory, with
// day ticks on the time axis. Lines break at gaps; a request of zero is never drawn (a window
// only carries a request while its pod runs).
void write_timeline_svg(std::ostream& out, const std::string& title,
                        const std::vector<NamedTimeline>& runs, const TimelineShape& shape);

}  // namespace tailor::recommender
