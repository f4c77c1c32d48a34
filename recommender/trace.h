#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <stdexcept>
#include <string>
#include <vector>

#include "recommender/resources.h"

namespace tailor::recommender {

// One fixed-length usage window of one container (docs/scoring.md, section 2). Limits are the
// sizing the container ran with; 0 when the trace has none.
struct TraceWindow {
  Seconds start = 0;
  double avg_cpu = 0;
  double max_cpu = 0;
  double p95_cpu = 0;
  double avg_mem = 0;
  double max_mem = 0;  // 0 = missing sample
  double cpu_limit = 0;
  double memory_limit = 0;
  // 0: the series' window. A sample period ended early (recommender/sample_period.h) and the
  // rest of it after that have their own, shorter length.
  Seconds length = 0;
};

// One container's usage over one measured window, times in Unix milliseconds. CPU: the mean
// rate over the window and the highest rate sampled in it; memory: the highest usage seen in it
// (0 = no memory reading).
struct MeasuredWindow {
  std::int64_t start_ms = 0;
  std::int64_t end_ms = 0;
  double cpu_mean_cores = 0;
  double cpu_peak_cores = 0;
  double memory_peak_bytes = 0;
  friend bool operator==(const MeasuredWindow&, const MeasuredWindow&) = default;
};

struct ContainerSeries {
  std::string container;
  Seconds window = 300;
  bool has_limits = false;
  std::vector<TraceWindow> windows;  // strictly ascending start
  // A recording's windows as measured (recommender/recorded_windows.h); `windows` then holds
  // them folded without requests. Replay folds these itself, with the requests it sets, as the
  // live controller folds a pod's windows with the pod's (sample_period.h, kEarlyCloseRatio).
  std::vector<MeasuredWindow> measured{};
};

// Google 2019 normalized units (docs/scoring.md, section 2.1): 1 NCU = 100 cores,
// 1 memory unit = 512 GiB.
inline constexpr double kGoogleCpuCores = 100.0;
inline constexpr double kGoogleMemoryBytes = 512.0 * 1024 * 1024 * 1024;
inline constexpr Seconds kGoogleWindow = 300;

// Plausibility limits: a value beyond them is a corrupt line, not usage.
inline constexpr double kMaxPlausibleCores = 10000.0;
inline constexpr double kMaxPlausibleBytes = 1e15;      // ~1 PB
inline constexpr double kMaxPlausibleTime = 1e11;       // seconds, ~year 5138 after the Unix epoch
inline constexpr Seconds kMaxForwardJump = 366 * kDay;  // between a container's rows

class TraceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Rejected lines are reported, not fatal: `messages` keeps the first few ("file:line: why").
struct TraceDiagnostics {
  std::size_t rows_read = 0;
  std::size_t rows_rejected = 0;
  std::size_t values_clamped = 0;
  std::vector<std::string> messages;
  void reject(const std::string& where, const std::string& why);
  void clamp(const std::string& where, const std::string& why);
};

// Reads a Google 2019 per-task CSV or a generic CSV (detected from the header) and appends its
// series to `out` (series of the same container from several files are kept apart by file).
// Throws TraceError when the file cannot be read or the header lacks required columns.
void read_trace_file(const std::string& path, std::vector<ContainerSeries>& out,
                     TraceDiagnostics& diag);
void read_trace_stream(std::istream& in, const std::string& source,
                       std::vector<ContainerSeries>& out, TraceDiagnostics& diag);

// Expands directories (their *.csv files, sorted) and reads every trace.
std::vector<ContainerSeries> read_traces(const std::vector<std::string>& paths,
                                         TraceDiagnostics& diag);

}  // namespace tailor::recommender
