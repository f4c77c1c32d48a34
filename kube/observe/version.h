// Tailor's version, as --version prints it: the chart's appVersion (charts/tailor/Chart.yaml),
// which CMake reads at configure time, so the programs, the chart and the image tag agree.
#pragma once

#include <string_view>

namespace tailor::kube::observe {

std::string_view tailor_version();

}  // namespace tailor::kube::observe
