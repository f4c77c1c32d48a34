#include "tests/e2e/workload_series_history.h"

#include <sstream>

namespace tailor::e2e {

std::string shortfall_openmetrics(const ShortfallHistory& h) {
  std::ostringstream out;
  out.precision(17);
  const std::string name = "tailor_workload_cpu_shortfall_core_seconds";
  const std::string labels = "{namespace=\"" + h.ns + "\",target_kind=\"" + h.target_kind +
                             "\",target_name=\"" + h.target_name + "\",container=\"" + h.container +
                             "\"}";
  out << "# TYPE " << name << " counter\n";
  const std::int64_t first = h.until_s - std::int64_t(h.hours) * 3600;
  for (int m = 0; m < h.hours * 60; ++m) {
    const std::int64_t t = first + m * 60 + 30;
    out << name << "_total" << labels << " " << h.before + (t >= h.step_at_s ? h.step : 0.0) << " "
        << t << "\n";
  }
  return out.str();
}

}  // namespace tailor::e2e
