#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "recommender/vpa_estimator.h"

namespace tailor::recommender {

// The four knobs of VPA's recommender that the trade-off curves of docs/scoring.md move, with VPA's
// defaults (--target-cpu-percentile, --target-memory-percentile, and the margin fraction that
// VPA shares between the two resources).
struct VpaKnobs {
  double cpu_percentile = 0.9;
  double cpu_margin = 0.15;
  double memory_percentile = 0.9;
  double memory_margin = 0.15;
  friend bool operator==(const VpaKnobs&, const VpaKnobs&) = default;
  // The memory knobs are VPA's defaults: a point of the CPU curve (plain vpa included).
  bool cpu_only() const;
  // The CPU knobs are VPA's defaults: a point of the memory curve (plain vpa included).
  bool memory_only() const;
};

// Parses "vpa" or "vpa:KNOB=VALUE[,KNOB=VALUE...]" (knobs cpu-percentile, cpu-margin,
// memory-percentile, memory-margin; percentiles in (0, 1], margins in [0, 1]). Throws
// std::invalid_argument saying what is wrong: another strategy, an unknown or repeated knob, a
// value that is not a number or out of range, a missing '=' or value.
VpaKnobs parse_vpa_knobs(std::string_view spec);
bool is_vpa_spec(std::string_view spec);  // "vpa" or "vpa:..."

// The estimator VPA runs with these knobs. The bounds' percentiles (VPA: 0.5 and 0.95) widen to
// take in the target: with a target above the upper bound the updater would see every request
// at the target as out of range and apply each window's small change.
VpaEstimatorConfig vpa_estimator_config(const VpaKnobs& knobs);

// VPA's standard curve points (docs/scoring.md ("Trade-off curves")), each a strategy spec that
// moves one knob from VPA's default: CPU percentile 0.80 / 0.85 / 0.95 / 0.99, CPU margin 0 / 5 /
// 10 / 20 / 30 %, memory percentile 0.80 / 0.95 / 0.99, memory margin 0 / 5 / 10 / 20 / 30 % (the
// default 0.90 and 15 % are the `vpa` row itself). Margins in 5-point steps where the curve
// bends (near 0) and 10-point steps above the default, so both ends of the 0-30 % range are
// drawn with 17 rows in all.
std::vector<std::string> vpa_frontier_specs();

}  // namespace tailor::recommender
