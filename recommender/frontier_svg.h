#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "recommender/replay.h"

namespace tailor::recommender {

// One SVG of a run's trade-off planes, CPU (slack against shortfall) beside memory (slack
// against OOMs per day): VPA's points of each resource (recommender/frontier.h) with its lower
// envelope drawn as the curve, and every strategy row that is not a curve point as a labelled
// point. The as-run row is left out: trace limits sit far from any recommender and would squeeze
// the curves flat.
void write_tradeoff_svg(std::ostream& out, const std::string& title,
                        const std::vector<ScoreRow>& rows);

}  // namespace tailor::recommender
