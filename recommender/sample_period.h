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

// A window that cannot be folded: its duration is not positive, a value is NaN, infinite or
// negative, or it does not end after the window folded before it.
class UsageWindowError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// A window whose mean CPU is at least kEarlyCloseRatio times the CPU request the pod ran with
// ends the period early (SamplePeriodFold::fold). Why: the period is there to average a
// window's noise around a request, and no noise doubles a request's worth of CPU over a whole
// window (a 5-minute window's p95 is typically 1.1-1.4 x its mean, a 15 s window's mean varies a
// little more). Such a window is a change of load, the pod is throttled while it lasts, and
// waiting for the period's end would leave it so for up to 5 minutes before the model and the
// update rule (the strategy's burst rule) see it. Replay folds a recording with the requests it
// sets, the live controller with the pod's: both cut the same periods.
inline constexpr double kEarlyCloseRatio = 2.0;

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
  // `cpu_request`: the CPU request the pod ran with during `w` (0: none). A window at least
  // kEarlyCloseRatio times over it ends the period early: the part before it is completed as it
  // stands, the window is a period of its own, and the rest of the period after it is one more.
  // Such a part starts where it was cut (TraceWindow::start) and has its own `length`.
  // Throws UsageWindowError, saying what is wrong, and keeps its state then.
  std::vector<TraceWindow> fold(const MeasuredWindow& w, double cpu_request = 0);
  // The open period, if any window has touched it, as it stands (for a container gone quiet):
  // returned and forgotten.
  std::optional<TraceWindow> close();
  // The open period as it stands (it stays open), else the last one completed: the latest
  // usage, as a scrape shows it; nullopt before the first window.
  std::optional<TraceWindow> latest() const;
  // The end of the open period (Unix seconds), or nullopt when none is open.
  std::optional<Seconds> open_period_end() const;

 private:
  void add(std::int64_t from_ms, std::int64_t to_ms, const MeasuredWindow& w);
  void open(std::int64_t from_ms, std::int64_t end_ms);
  TraceWindow current() const;
  TraceWindow take();

  Seconds period_;
  bool open_ = false;
  Seconds start_ = 0;                // of the open period (aligned, or where it was cut)
  std::int64_t end_ms_ = 0;          // of the open period
  std::int64_t cut_ms_ = INT64_MIN;  // the end of the last period ended early
  double covered_ms_ = 0;
  double cpu_core_ms_ = 0;  // mean CPU times covered time, summed
  double cpu_peak_ = 0;
  double memory_peak_ = 0;
  std::int64_t last_end_ms_ = INT64_MIN;
};

// The model's input for one period: its start, the period's length, the mean CPU, the CPU peak
// and the memory peak. `length` is the whole period even when windows covered part of it, as a
// trace row stands for its whole window; a period cut early has its own (TraceWindow::length).
UsageSample usage_sample(const TraceWindow& w, Seconds length);

}  // namespace tailor::recommender
