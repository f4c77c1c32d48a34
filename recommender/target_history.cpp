#include "recommender/target_history.h"

#include <algorithm>
#include <cmath>

namespace tailor::recommender {
namespace {
constexpr double kStepsPerOctave = 2048;
constexpr double kLowestCores = -16;  // log2: 15 microcores
constexpr double kLowestBytes = 16;   // log2: 64 KiB

double decode(std::uint16_t code, double lowest) {
  return code == 0 ? 0.0 : std::exp2(lowest + code / kStepsPerOctave);
}

std::uint16_t encode(double value, double lowest) {
  if (!(value > 0)) return 0;
  // + 1e-9 step: log2 and exp2 are off by an ulp or so (~1e-11 step here), so a value on or
  // within 1e-9 step below a grid point takes the next one, and every code decodes to at least
  // its value.
  const double steps = std::ceil((std::log2(value) - lowest) * kStepsPerOctave + 1e-9);
  return static_cast<std::uint16_t>(std::clamp(steps, 1.0, 65535.0));
}

int slot_of(std::int64_t hour) { return static_cast<int>(hour % TargetHistory::kHours); }
}  // namespace

std::uint16_t TargetHistory::encode_cores(double cores) { return encode(cores, kLowestCores); }
std::uint16_t TargetHistory::encode_bytes(double bytes) { return encode(bytes, kLowestBytes); }
double TargetHistory::decode_cores(std::uint16_t code) { return decode(code, kLowestCores); }
double TargetHistory::decode_bytes(std::uint16_t code) { return decode(code, kLowestBytes); }

void TargetHistory::remember(const Resources& target, Seconds now) {
  if (now < 0) return;
  const std::int64_t hour = now / kHour;
  if (newest_hour_ >= 0 && hour <= newest_hour_ - kHours) return;
  if (hour > newest_hour_) {
    // The hours between the newest and this one saw no target: their slots are emptied.
    const std::int64_t first = std::max(newest_hour_ + 1, hour - kHours + 1);
    for (std::int64_t h = first; h <= hour; ++h) cpu_[slot_of(h)] = memory_[slot_of(h)] = 0;
    newest_hour_ = hour;
  }
  const int i = slot_of(hour);
  cpu_[i] = std::max(cpu_[i], encode_cores(target.cpu_cores));
  memory_[i] = std::max(memory_[i], encode_bytes(target.memory_bytes));
}

Resources TargetHistory::recent_max(Seconds now, Seconds within) const {
  if (newest_hour_ < 0) return {};
  const std::int64_t hour = now / kHour;
  std::uint16_t cpu = 0, memory = 0;
  for (std::int64_t h = newest_hour_ - kHours + 1; h <= newest_hour_; ++h) {
    if (h < 0 || (hour - h) * kHour >= within) continue;
    cpu = std::max(cpu, cpu_[slot_of(h)]);
    memory = std::max(memory, memory_[slot_of(h)]);
  }
  return {decode_cores(cpu), decode_bytes(memory)};
}

void TargetHistory::assign(const Codes& c) {
  newest_hour_ = c.newest_hour;
  cpu_ = c.cpu;
  memory_ = c.memory;
}

}  // namespace tailor::recommender
