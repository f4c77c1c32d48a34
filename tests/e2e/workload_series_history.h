// tailor-controller's own series (controller/app/workload_series.h) as OpenMetrics history for
// promtool backfill, so that `tailor report --prometheus` can be checked against a real
// Prometheus holding known figures.
#pragma once

#include <cstdint>
#include <string>

namespace tailor::e2e {

struct ShortfallHistory {
  std::string ns, target_kind, target_name, container;
  std::int64_t until_s = 0;  // the last sample at until_s - 30
  int hours = 30;            // a sample a minute (at :30) over this many hours before until_s
  double before = 0;         // the counter until step_at_s
  std::int64_t step_at_s = 0;
  double step = 0;  // core-seconds added at step_at_s (the shortfall of that moment)
};

// tailor_workload_cpu_shortfall_core_seconds_total of one workload container, without "# EOF".
std::string shortfall_openmetrics(const ShortfallHistory& h);

}  // namespace tailor::e2e
