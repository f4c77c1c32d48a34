#pragma once

#include <cmath>
#include <vector>

#include "recommender/corpus_random.h"
#include "recommender/corpus_window.h"
#include "recommender/resources.h"

namespace tailor::recommender::corpus {

inline constexpr Seconds kWindow = 300;
inline constexpr double kGiB = 1024.0 * kMiB;

// Every shape: one WindowShape per 5-minute window from time 0 (a Monday, 00:00 UTC).
using Shape = std::vector<WindowShape>;
inline Seconds window_start(std::size_t i) { return static_cast<Seconds>(i) * kWindow; }
inline double hours(std::size_t i) { return static_cast<double>(window_start(i)) / kHour; }
inline double days(std::size_t i) { return static_cast<double>(window_start(i)) / kDay; }
inline std::size_t windows_in(double h) { return static_cast<std::size_t>(h * kHour / kWindow); }

// A daily cycle: 1 + amplitude at the peak hour, 1 − amplitude twelve hours away.
inline double diurnal(std::size_t i, double amplitude, double peak_hour) {
  return 1.0 + amplitude * std::cos(6.283185307179586 * (hours(i) - peak_hour) / 24.0);
}

// Slow wandering of a level (traffic mix, data size): log-level AR(1) with a few hours' memory
// and a stationary spread of about ±10 %.
class Drift {
 public:
  double next(CorpusRandom& r) {
    log_ = 0.98 * log_ + 0.02 * r.normal();
    return std::exp(log_);
  }

 private:
  double log_ = 0;
};

// Size of a container: CPU and memory drawn over the ranges real services span.
struct Size {
  double cpu, memory;
};
inline Size draw_size(CorpusRandom& r) {
  return {r.log_uniform(0.05, 2.0), r.log_uniform(256 * kMiB, 4 * kGiB)};
}

// The families (recommender/corpus.h lists them with their descriptions).
Shape diurnal_shape(CorpusRandom& r, std::size_t n);
Shape weekly_shape(CorpusRandom& r, std::size_t n);
Shape steps_shape(CorpusRandom& r, std::size_t n);
Shape growth_shape(CorpusRandom& r, std::size_t n);
Shape batch_shape(CorpusRandom& r, std::size_t n);
Shape spikes_shape(CorpusRandom& r, std::size_t n);
Shape noisy_shape(CorpusRandom& r, std::size_t n);
Shape tiny_shape(CorpusRandom& r, std::size_t n);
Shape leak_shape(CorpusRandom& r, std::size_t n);
Shape jvm_shape(CorpusRandom& r, std::size_t n);
Shape startup_shape(CorpusRandom& r, std::size_t n);
Shape gaps_shape(CorpusRandom& r, std::size_t n);

}  // namespace tailor::recommender::corpus
