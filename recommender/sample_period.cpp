#include "recommender/sample_period.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace tailor::recommender {
namespace {

// The start of the period of `period` s holding the instant `ms` (floor division: times before
// the epoch too).
Seconds period_of(std::int64_t ms, Seconds period) {
  const std::int64_t period_ms = period * 1000;
  const std::int64_t q = ms / period_ms;
  return (ms % period_ms < 0 ? q - 1 : q) * period;
}

Seconds floor_seconds(std::int64_t ms) { return ms / 1000 - (ms % 1000 < 0 ? 1 : 0); }
Seconds ceil_seconds(std::int64_t ms) { return -floor_seconds(-ms); }

void check_value(double v, const char* name) {
  if (!std::isfinite(v) || v < 0) {
    throw UsageWindowError(std::string("usage window: ") + name + " is " +
                           (std::isnan(v) ? "not a number"
                            : v < 0       ? "negative"
                                          : "infinite") +
                           " (" + std::to_string(v) + ")");
  }
}

void check(const MeasuredWindow& w, std::int64_t last_end_ms) {
  if (w.end_ms <= w.start_ms) {
    throw UsageWindowError("usage window: duration must be positive, the window ends at " +
                           std::to_string(w.end_ms) + " ms and starts at " +
                           std::to_string(w.start_ms) + " ms");
  }
  check_value(w.cpu_mean_cores, "mean CPU");
  check_value(w.cpu_peak_cores, "CPU peak");
  check_value(w.memory_peak_bytes, "memory peak");
  if (w.end_ms <= last_end_ms) {
    throw UsageWindowError("usage window: ends at " + std::to_string(w.end_ms) +
                           " ms, not after the previous window's end at " +
                           std::to_string(last_end_ms) + " ms (windows must come in time order)");
  }
}

}  // namespace

SamplePeriodFold::SamplePeriodFold(Seconds period) : period_(period) {
  if (period <= 0) {
    throw std::invalid_argument("sample period must be at least 1s, got " + std::to_string(period) +
                                "s");
  }
}

std::vector<TraceWindow> SamplePeriodFold::fold(const MeasuredWindow& w, double cpu_request) {
  check(w, last_end_ms_);
  std::vector<TraceWindow> done;
  // Of a window overlapping the one before (readings over windows longer than their spacing),
  // only the part after it is new: its mean counts there, its peaks too (they may have come
  // before, but a peak is never hidden).
  std::int64_t t = std::max(w.start_ms, last_end_ms_);
  if (cpu_request > 0 && w.cpu_mean_cores >= kEarlyCloseRatio * cpu_request) {
    // A change of load (kEarlyCloseRatio): the period so far, then the window on its own.
    if (open_) {
      end_ms_ = std::min(end_ms_, t);
      done.push_back(take());
    }
    open(t, w.end_ms);
    add(t, w.end_ms, w);
    done.push_back(take());
    cut_ms_ = w.end_ms;
    last_end_ms_ = w.end_ms;
    return done;
  }
  while (t < w.end_ms) {
    const Seconds period = period_of(t, period_);
    const std::int64_t period_end_ms = (period + period_) * 1000;
    if (open_ && end_ms_ != period_end_ms) done.push_back(take());
    if (!open_) open(std::max(period * 1000, cut_ms_), period_end_ms);
    const std::int64_t until = std::min(w.end_ms, period_end_ms);
    add(t, until, w);
    if (until == period_end_ms) done.push_back(take());
    t = until;
  }
  last_end_ms_ = w.end_ms;
  return done;
}

// A period from `from_ms` to `end_ms`: a whole aligned period, or a part of one an early end
// cut (then from the cut, or from the window that ended it).
void SamplePeriodFold::open(std::int64_t from_ms, std::int64_t end_ms) {
  open_ = true;
  covered_ms_ = cpu_core_ms_ = cpu_peak_ = memory_peak_ = 0;
  end_ms_ = end_ms;
  start_ = floor_seconds(from_ms);
}

void SamplePeriodFold::add(std::int64_t from_ms, std::int64_t to_ms, const MeasuredWindow& w) {
  const double covered = static_cast<double>(to_ms - from_ms);
  covered_ms_ += covered;
  cpu_core_ms_ += w.cpu_mean_cores * covered;
  // A peak below the mean is a reading of the mean alone (a source without a peak).
  cpu_peak_ = std::max({cpu_peak_, w.cpu_peak_cores, w.cpu_mean_cores});
  memory_peak_ = std::max(memory_peak_, w.memory_peak_bytes);
}

TraceWindow SamplePeriodFold::current() const {
  TraceWindow out;
  out.start = start_;
  const Seconds end = ceil_seconds(end_ms_);
  // A whole aligned period keeps length 0 (the series' window, as before any early end).
  if (end - start_ != period_ || end_ms_ % 1000 != 0)
    out.length = std::max<Seconds>(1, end - start_);
  // Rounding in the weighted sum may put the mean of equal windows a hair above their peak.
  out.avg_cpu = std::min(cpu_core_ms_ / covered_ms_, cpu_peak_);
  out.max_cpu = cpu_peak_;
  out.p95_cpu = cpu_peak_;  // not measured: the peak bounds it, as a trace without p95 reads
  out.max_mem = memory_peak_;
  return out;
}

// The sums stay until the next period opens: latest() reads them.
TraceWindow SamplePeriodFold::take() {
  open_ = false;
  return current();
}

std::optional<TraceWindow> SamplePeriodFold::close() {
  if (!open_) return std::nullopt;
  return take();
}

std::optional<TraceWindow> SamplePeriodFold::latest() const {
  if (covered_ms_ <= 0) return std::nullopt;
  return current();
}

std::optional<Seconds> SamplePeriodFold::open_period_end() const {
  if (!open_) return std::nullopt;
  return ceil_seconds(end_ms_);
}

UsageSample usage_sample(const TraceWindow& w, Seconds length) {
  return {.start = w.start,
          .length = w.length > 0 ? w.length : length,
          .cpu_cores = w.avg_cpu,
          .memory_peak_bytes = w.max_mem,
          .cpu_peak_cores = std::max(w.max_cpu, w.avg_cpu)};
}

}  // namespace tailor::recommender
