#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace tailor::cli {

// `tailor report [--kubeconfig FILE] [--context NAME] [-n NS] [-o table|json|csv|html]
//                [--cpu-price P] [--memory-price P]`: every workload under a
// VerticalScalingPolicy or VPA object, per container, read from a live cluster. Returns the
// exit code; nothing goes to `out` unless the whole report was read.
int run_report(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
               bool out_is_terminal);

}  // namespace tailor::cli
