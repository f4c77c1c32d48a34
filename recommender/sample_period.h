// The one way usage reaches a model, in replay and in the live controller alike: measured windows
// of any length (a node agent's 15 s report, a metrics.k8s.io reading, a Prometheus step) are
// folded into fixed sample periods, and each period becomes one UsageSample.
//
// Why periods of 5 minutes and not each window as it comes: the models were built and their
// settings chosen on 5-minute windows (the Google 2019 trace, the corpus). Their percentiles are
// over per-window values, and a 15 s mean varies more than a 5-minute one, a 15 s memory peak is
// lower than the 5-minute peak around it; the ensemble's costs and change penalty are counted per
// sample. Fed 15 s windows, the live model would compute other percentiles from the same load
// than the replay that scored it. So the live path folds windows into the same periods the replay
// reads, and both hand the model the same kind of sample.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <vector>

#include "recommender/strategy.h"
#include "recommender/trace.h"

namespace tailor::recommender {

// The sample period: 5 minutes, the window of the traces the models are tuned on (and the
// ensemble's cost unit, ModelEnsemble::kCostUnit). Periods start at multiples of it since the
// epoch, so every source and every replica cuts the same periods.
inline constexpr Seconds kSamplePeriod = 300;

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

// A window that cannot be folded: its duration is not positive, a value is NaN, infinite or
// negative, or it does not end after the window folded before it.
class UsageWindowError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// The period being filled from one container's windows.
class SamplePeriodFold {
 public:
  // Periods of `period` seconds (positive; throws std::invalid_argument otherwise). Only
  // kSamplePeriod matches the models' tuning; shorter periods are for demos and tests.
  explicit SamplePeriodFold(Seconds period = kSamplePeriod);

  // Folds `w` in and returns the periods it completed, oldest first, as trace windows (the form
  // replay reads): the mean is weighted by the time each window covers in the period, the peaks
  // are the largest of the windows' peaks. A window straddling a period boundary gives each
  // period its covered part of the mean, and its peaks to both: the peak fell in one of them,
  // and counting it in both never hides a peak from the period that had it (a memory peak missed
  // is an OOM kill; one counted twice is at most one period's slack). A period is complete once
  // a window reaches its end; periods no window touched are gaps and yield nothing.
  // Throws UsageWindowError, saying what is wrong, and keeps its state then.
  std::vector<TraceWindow> fold(const MeasuredWindow& w);
  // The open period, if any window has touched it, as it stands (for a container gone quiet):
  // returned and forgotten.
  std::optional<TraceWindow> close();
  // The end of the open period (Unix seconds), or nullopt when none is open.
  std::optional<Seconds> open_period_end() const;

 private:
  void add(std::int64_t from_ms, std::int64_t to_ms, const MeasuredWindow& w);
  TraceWindow take();

  Seconds period_;
  bool open_ = false;
  Seconds start_ = 0;
  double covered_ms_ = 0;
  double cpu_core_ms_ = 0;  // mean CPU times covered time, summed
  double cpu_peak_ = 0;
  double memory_peak_ = 0;
  std::int64_t last_end_ms_ = INT64_MIN;
};

// The model's input for one period: its start, the period's length, the mean CPU, the CPU peak
// and the memory peak. `length` is the whole period even when windows covered part of it, as a
// trace row stands for its whole window.
UsageSample usage_sample(const TraceWindow& w, Seconds length);

}  // namespace tailor::recommender
