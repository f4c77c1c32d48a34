#include "controller/app/measured_window.h"

#include <algorithm>

namespace tailor::controller {

recommender::MeasuredWindow measured_window(const usage::UsageWindow& w) {
  return {.start_ms = std::min(w.start_unix_ms, w.end_unix_ms - 1000),
          .end_ms = w.end_unix_ms,
          .cpu_mean_cores = w.cpu_cores_mean,
          .cpu_peak_cores = w.cpu_cores_max,
          .memory_peak_bytes = std::max(w.memory_peak_bytes, w.memory_working_set_max_bytes)};
}

std::string window_source(const usage::UsageWindow& w) {
  return w.ns + "/" + w.pod + "/" + w.pod_uid;
}

}  // namespace tailor::controller
