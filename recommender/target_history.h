#pragma once

#include <array>
#include <cstdint>

#include "recommender/resources.h"

namespace tailor::recommender {

// The largest target of each of the last 24 hours, which the default strategy's decreases wait
// on (a decrease needs every target of the last day to be lower).
//
// Stored in 104 bytes instead of 24 x (2 doubles + an hour): the hours are implied by the
// newest one (slot i holds the hour of the last day that is i modulo 24), and each target is
// rounded UP to a grid of 2^(1/2048) (0.034 %), 16 bits each. Rounding up keeps the rule
// conservative: a remembered target is never below the real one, so a decrease is never
// allowed that the exact history would refuse; one it would allow is refused only when the
// target is within 0.034 % of the threshold.
class TargetHistory {
 public:
  static constexpr int kHours = 24;

  // Times going back more than a day (never in the controller or replay) are ignored.
  void remember(const Resources& target, Seconds now);
  // The largest target remembered for hours less than `within` before now's hour.
  Resources recent_max(Seconds now, Seconds within) const;

  // The stored form, for checkpoints: the newest hour (-1: none) and the codes.
  struct Codes {
    std::int64_t newest_hour = -1;
    std::array<std::uint16_t, kHours> cpu{}, memory{};
  };
  Codes codes() const { return {newest_hour_, cpu_, memory_}; }
  void assign(const Codes& c);

  // The grid: 0 is zero, code c > 0 is 2^(lowest + c / 2048); encode rounds up and saturates
  // at the top (64 Ki cores, 256 TiB).
  static std::uint16_t encode_cores(double cores);
  static std::uint16_t encode_bytes(double bytes);
  static double decode_cores(std::uint16_t code);
  static double decode_bytes(std::uint16_t code);

 private:
  std::int64_t newest_hour_ = -1;
  std::array<std::uint16_t, kHours> cpu_{};
  std::array<std::uint16_t, kHours> memory_{};
};

}  // namespace tailor::recommender
