#include "recommender/vpa_knobs.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <stdexcept>

namespace tailor::recommender {
namespace {

constexpr std::string_view kKnobs = "cpu-percentile, cpu-margin, memory-percentile, memory-margin";

[[noreturn]] void fail(std::string_view spec, const std::string& why) {
  throw std::invalid_argument("strategy '" + std::string(spec) + "': " + why);
}

double parse_value(std::string_view spec, std::string_view knob, std::string_view text) {
  double v = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec != std::errc() || ptr != end || !std::isfinite(v)) {
    fail(spec, "value of " + std::string(knob) + " is not a number: '" + std::string(text) + "'");
  }
  return v;
}

void set_knob(VpaKnobs& k, std::string_view spec, std::string_view knob, std::string_view text) {
  const double v = parse_value(spec, knob, text);
  const bool percentile = knob.ends_with("-percentile");
  // A percentile of 0 is no recommendation at all; a margin above 100 % doubles a peak that the
  // percentile already chose, which is a different request, not a point of VPA's curve.
  if (percentile ? !(v > 0 && v <= 1) : !(v >= 0 && v <= 1)) {
    fail(spec, std::string(knob) + "=" + std::string(text) + " is out of range (" +
                   (percentile ? "a percentile in (0, 1]" : "a margin fraction in [0, 1]") + ")");
  }
  if (knob == "cpu-percentile") {
    k.cpu_percentile = v;
  } else if (knob == "cpu-margin") {
    k.cpu_margin = v;
  } else if (knob == "memory-percentile") {
    k.memory_percentile = v;
  } else {
    k.memory_margin = v;
  }
}

bool known_knob(std::string_view knob) {
  return knob == "cpu-percentile" || knob == "cpu-margin" || knob == "memory-percentile" ||
         knob == "memory-margin";
}

}  // namespace

bool VpaKnobs::cpu_only() const {
  const VpaKnobs d;
  return memory_percentile == d.memory_percentile && memory_margin == d.memory_margin;
}

bool VpaKnobs::memory_only() const {
  const VpaKnobs d;
  return cpu_percentile == d.cpu_percentile && cpu_margin == d.cpu_margin;
}

bool is_vpa_spec(std::string_view spec) { return spec == "vpa" || spec.starts_with("vpa:"); }

VpaKnobs parse_vpa_knobs(std::string_view spec) {
  if (!is_vpa_spec(spec)) fail(spec, "not a vpa strategy (want vpa or vpa:KNOB=VALUE,...)");
  VpaKnobs k;
  if (spec == "vpa") return k;
  std::string_view rest = spec.substr(4);
  if (rest.empty()) fail(spec, "no knob after 'vpa:' (knobs: " + std::string(kKnobs) + ")");
  std::vector<std::string_view> seen;
  while (true) {
    const std::size_t comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    const std::size_t eq = item.find('=');
    if (eq == std::string_view::npos) {
      fail(spec, "'" + std::string(item) + "' is not KNOB=VALUE");
    }
    const std::string_view knob = item.substr(0, eq);
    if (!known_knob(knob)) {
      fail(spec, "unknown knob '" + std::string(knob) + "' (knobs: " + std::string(kKnobs) + ")");
    }
    if (std::find(seen.begin(), seen.end(), knob) != seen.end()) {
      fail(spec, "knob " + std::string(knob) + " given twice");
    }
    seen.push_back(knob);
    set_knob(k, spec, knob, item.substr(eq + 1));
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  return k;
}

VpaEstimatorConfig vpa_estimator_config(const VpaKnobs& k) {
  VpaEstimatorConfig c;
  c.cpu_target_percentile = k.cpu_percentile;
  c.memory_target_percentile = k.memory_percentile;
  c.cpu_safety_margin = k.cpu_margin;
  c.memory_safety_margin = k.memory_margin;
  c.cpu_lower_percentile = std::min(c.cpu_lower_percentile, k.cpu_percentile);
  c.cpu_upper_percentile = std::max(c.cpu_upper_percentile, k.cpu_percentile);
  c.memory_lower_percentile = std::min(c.memory_lower_percentile, k.memory_percentile);
  c.memory_upper_percentile = std::max(c.memory_upper_percentile, k.memory_percentile);
  return c;
}

std::vector<std::string> vpa_frontier_specs() {
  std::vector<std::string> specs;
  for (const char* p : {"0.8", "0.85", "0.95", "0.99"})
    specs.push_back(std::string("vpa:cpu-percentile=") + p);
  for (const char* m : {"0", "0.05", "0.1", "0.2", "0.3"})
    specs.push_back(std::string("vpa:cpu-margin=") + m);
  for (const char* p : {"0.8", "0.95", "0.99"})
    specs.push_back(std::string("vpa:memory-percentile=") + p);
  for (const char* m : {"0", "0.05", "0.1", "0.2", "0.3"})
    specs.push_back(std::string("vpa:memory-margin=") + m);
  return specs;
}

}  // namespace tailor::recommender
