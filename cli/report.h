#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "recommender/replay.h"

namespace tailor::cli {

void print_table(std::ostream& out, const std::vector<recommender::ScoreRow>& rows);
void print_per_container(std::ostream& out, const std::vector<recommender::ScoreRow>& rows);
// {"rows":[{"strategy":…,"cpu_slack":…,…}]}: the columns of docs/scoring.md, section 5.
void write_json(std::ostream& out, const std::vector<recommender::ScoreRow>& rows);

}  // namespace tailor::cli
