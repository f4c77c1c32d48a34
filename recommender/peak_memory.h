#pragma once

#include <array>
#include <climits>
#include <cstdint>

#include "recommender/resources.h"

namespace tailor::recommender {

// A memory floor that remembers the largest window peaks of the last days, and how far new
// records have jumped past the old ones.
//
// Why: an OOM kill is caused by one peak above the limit, so a percentile of recent peaks (the
// ensemble's view) forgets exactly what matters when it recurs every few days: a deploy's
// warm-up overshoot, a periodic batch run, a rare transient. Keeping each day's largest peak
// for a week covers anything that recurs within a week (weekly jobs and weekends being the
// longest common cycle of load) at the cost of one float per day.
//
// The "surprise" of a window is how far its peak exceeded the largest peak remembered before
// it (peak / floor - 1; 0 when it did not). A container whose records have jumped by x recently
// may jump by x again, so margin() is the largest surprise of the remembered days: learned per
// container, near 0 for smooth memory, large for spiky memory. Windows rising a little at a time
// (a leak, a daily cycle) have small surprises, because each is measured against the window
// before it.
//
// State: 7 days x (peak, surprise, day) = 56 bytes. Pure arithmetic, no allocation.
class PeakMemory {
 public:
  static constexpr int kDays = 7;

  // A window peak (bytes) of the window starting at `time`; non-finite or non-positive peaks
  // are ignored (missing samples). Inline: most windows are no record of their day, and then
  // they are under the day's peak and change nothing (one division, one compare).
  void observe(double peak, Seconds time) {
    if (time >= 0 && time / kDay <= INT32_MAX) {  // else the out-of-line path's floor division
      // Unsigned (time >= 0 here): the divisions need no sign corrections.
      const auto day = static_cast<std::uint32_t>(static_cast<std::uint64_t>(time) / kDay);
      const std::uint32_t i = day % kDays;
      if (day_[i] == static_cast<std::int32_t>(day) && peak <= peak_[i]) return;
    }
    observe_record(peak, time);
  }
  // The largest peak of the last `days` days (today and days - 1 before it), 0 if none.
  double floor(Seconds now, int days = kDays) const;
  // The largest surprise of the last `days` days.
  double margin(Seconds now, int days = kDays) const;

  std::array<float, kDays> peaks() const { return peak_; }
  std::array<float, kDays> surprises() const { return surprise_; }
  std::array<std::int32_t, kDays> days() const { return day_; }
  // Restores the state the accessors above return; returns false (and changes nothing) for
  // negative or non-finite peaks and surprises.
  bool assign(const std::array<float, kDays>& peaks, const std::array<float, kDays>& surprises,
              const std::array<std::int32_t, kDays>& days);

 private:
  void observe_record(double peak, Seconds time);
  std::array<float, kDays> peak_{};
  std::array<float, kDays> surprise_{};
  static constexpr std::int32_t kEmpty = INT32_MIN;  // a slot no day has used
  std::array<std::int32_t, kDays> day_{kEmpty, kEmpty, kEmpty, kEmpty, kEmpty, kEmpty, kEmpty};
};

}  // namespace tailor::recommender
