#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "recommender/resources.h"

namespace tailor::recommender {

class CheckpointReader;
class CheckpointWriter;

// The daily shape of a load: for each hour of the day, the peak window-mean usage seen in that
// hour on each of the last kDays days. Most serving load repeats daily, so the same hour on past
// days predicts the coming hours better than any window of recent history (which has to cover
// the whole cycle, day peak included, all day long). 24 x 7 floats, no allocation.
class DailyProfile {
 public:
  static constexpr int kHours = 24;
  static constexpr int kDays = 7;

  DailyProfile();
  // Non-finite or negative usage, times before the epoch and samples older than the day kept
  // in their row are ignored.
  void observe(double usage, Seconds start);
  // The predicted peak over [from, to): for each hour of the day the span touches, the rank-th
  // highest (1 = highest) of that hour's daily peaks, then the highest over those hours. An hour
  // with fewer than `rank` days on record uses its lowest. 0 when no hour in the span has data.
  double peak(Seconds from, Seconds to, int rank) const;
  // Days with at least one sample among those kept.
  int days() const;
  std::size_t state_bytes() const { return sizeof(*this); }
  // Checkpoint; load() throws CheckpointError for days out of order or peaks not finite.
  void save(CheckpointWriter& out) const;
  void load(CheckpointReader& in);

 private:
  double hour_level(int hour_of_day, int rank) const;
  bool fresh(int row) const { return day_[row] >= 0 && day_[row] > newest_day_ - kDays; }

  std::array<float, kDays * kHours> peaks_;  // row = day % kDays; < 0 = no sample that hour
  std::array<std::int32_t, kDays> day_;      // the day each row holds; -1 = none
  std::int32_t newest_day_ = -1;             // rows older than kDays before it are stale
};

}  // namespace tailor::recommender
