#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace tailor::cli {

// `tailor corpus --out DIR [--seed N] [--per-family N]`: writes the synthetic corpus
// (recommender/corpus.h) as DIR/tuning/FAMILY/*.csv and DIR/held-out/FAMILY/*.csv.
// Returns the process exit code; errors go to `err`.
int run_corpus(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace tailor::cli
