#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace tailor::cli {

// `tailor replay TRACE... [--json FILE] [--strategy NAME]... [--plot-dir DIR]`.
// Returns the process exit code; errors go to `err` with what and where.
int run_replay(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace tailor::cli
