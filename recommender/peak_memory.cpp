#include "recommender/peak_memory.h"

#include <algorithm>
#include <cmath>

namespace tailor::recommender {
namespace {
std::int32_t day_of(Seconds t) {
  // Floor division, so that times before the epoch still fall in whole days.
  const Seconds d = t >= 0 ? t / kDay : -((-t + kDay - 1) / kDay);
  return static_cast<std::int32_t>(d);
}

int slot_of(std::int32_t day) { return static_cast<int>(((day % 7) + 7) % 7); }
}  // namespace

static_assert(PeakMemory::kDays == 7, "slot_of assumes a week of slots");

void PeakMemory::observe_record(double peak, Seconds time) {
  if (!std::isfinite(peak) || peak <= 0) return;
  const std::int32_t day = day_of(time);
  const int i = slot_of(day);
  // A window under its day's peak changes nothing, so the week is not scanned.
  if (day_[i] == day && peak <= peak_[i]) return;
  const double before = floor(time);
  if (day_[i] != day) {
    day_[i] = day;
    peak_[i] = 0;
    surprise_[i] = 0;
  }
  if (before > 0 && peak > before) {
    surprise_[i] = std::max(surprise_[i], static_cast<float>(peak / before - 1));
  }
  peak_[i] = std::max(peak_[i], static_cast<float>(peak));
}

double PeakMemory::floor(Seconds now, int days) const {
  const std::int32_t today = day_of(now);
  double m = 0;
  for (int i = 0; i < kDays; ++i) {
    if (day_[i] != kEmpty && day_[i] <= today && today - day_[i] < days)
      m = std::max<double>(m, peak_[i]);
  }
  return m;
}

double PeakMemory::margin(Seconds now, int days) const {
  const std::int32_t today = day_of(now);
  double m = 0;
  for (int i = 0; i < kDays; ++i) {
    if (day_[i] != kEmpty && day_[i] <= today && today - day_[i] < days) {
      m = std::max<double>(m, surprise_[i]);
    }
  }
  return m;
}

bool PeakMemory::assign(const std::array<float, kDays>& peaks,
                        const std::array<float, kDays>& surprises,
                        const std::array<std::int32_t, kDays>& days) {
  for (int i = 0; i < kDays; ++i) {
    if (!(peaks[i] >= 0) || !std::isfinite(peaks[i]) || !(surprises[i] >= 0) ||
        !std::isfinite(surprises[i])) {
      return false;
    }
  }
  peak_ = peaks;
  surprise_ = surprises;
  day_ = days;
  return true;
}

}  // namespace tailor::recommender
