#pragma once

#include "recommender/corpus_random.h"
#include "recommender/trace.h"

namespace tailor::recommender {

// What a corpus shape asks of one window; realize_window draws the window's figures from it.
struct WindowShape {
  bool present = true;      // false: the container is not running (no row)
  double cpu = 0;           // mean level, cores
  double cpu_spread = 0.2;  // σ of the log of the 10-second samples around the level
  double memory = 0;        // working set level, bytes
  double memory_burst = 0;  // a transient above the level inside the window (the peak), bytes
};

// Samples a window as a monitor does, 30 samples of 10 s, and reports their mean, 95th
// percentile and maximum, so that within-window peaks are real ones: mean <= p95 <= max always
// (the p95 is raised to the mean when one sample dominates a window). CPU is rounded to 10
// microcores and memory to whole bytes, the precision the trace files carry.
TraceWindow realize_window(const WindowShape& shape, Seconds start, CorpusRandom& random);

}  // namespace tailor::recommender
