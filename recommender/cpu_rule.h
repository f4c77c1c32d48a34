#pragma once

#include "recommender/resources.h"

namespace tailor::recommender {

// How the default strategy moves a container's CPU request. In-place resizes restart nothing,
// so the request may follow load within the day where VPA's cannot: it sits at a slowly moving
// level (the target), is raised at once when a window's load bursts past it, and the raise is
// given back as soon as the burst is over. Resizes stay bounded by the hysteresis of the two
// thresholds and by the hold after each raise.
struct CpuRule {
  // The request moves to the target when the target is above it by more than up_threshold or
  // below it by more than down_threshold: a band of +-15 % keeps noise (the target's own drift
  // and a window's jitter) from resizing, while a real change of level moves it within the hour.
  double up_threshold = 0.15;
  double down_threshold = 0.15;
  // A window whose mean usage is above the request by more than burst_threshold is a burst: the
  // request goes at once to that mean times 1 + burst_margin (the demand within a window peaks
  // above its mean, as the p95 of a 5-minute window is typically 1.1-1.4 x its mean). 30 %: a
  // window 30 % over its request is throttled for most of it; smaller overruns are the noise the
  // target's margin is there for.
  double burst_threshold = 0.3;
  double burst_margin = 0.2;
  // After a raise the request is not lowered for burst_hold: a burst usually lasts more than one
  // window (a batch run, a warm-up, a noisy neighbour's episode), and giving back in its middle
  // would cost a resize and a throttled window each time. Half an hour (6 windows of 5 minutes).
  Seconds burst_hold = 30 * 60;
};

// The CPU request to run with from now on. `request`: the one in force; `target`: the level the
// models propose; `last_usage`: the mean CPU of the window that just ended (< 0: none);
// `holding`: a raise was applied less than burst_hold ago (no decrease yet).
double next_cpu_request(const CpuRule& rule, double request, double target, double last_usage,
                        bool holding);

}  // namespace tailor::recommender
