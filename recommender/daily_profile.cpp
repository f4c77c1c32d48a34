#include "recommender/daily_profile.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>

#include "recommender/checkpoint_text.h"

namespace tailor::recommender {
namespace {
Seconds floor_div(Seconds a, Seconds b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }
}  // namespace

DailyProfile::DailyProfile() {
  peaks_.fill(-1.0f);
  day_.fill(-1);
}

void DailyProfile::observe(double usage, Seconds start) {
  if (!std::isfinite(usage) || usage < 0 || start < 0) return;
  const Seconds day = start / kDay;
  const int row = static_cast<int>(day % kDays);
  if (day_[row] != day) {
    if (day_[row] > day) return;  // older than the day kept in that row
    day_[row] = static_cast<std::int32_t>(day);
    newest_day_ = std::max(newest_day_, day_[row]);
    std::fill_n(peaks_.begin() + row * kHours, kHours, -1.0f);
  }
  const int hour = static_cast<int>((start - day * kDay) / kHour);
  float& peak = peaks_[row * kHours + hour];
  peak = std::max(peak, static_cast<float>(usage));
}

double DailyProfile::hour_level(int hour, int rank) const {
  std::array<float, kDays> values{};
  int n = 0;
  for (int row = 0; row < kDays; ++row) {
    const float v = peaks_[row * kHours + hour];
    if (fresh(row) && v >= 0) values[n++] = v;
  }
  if (n == 0) return 0;
  const int k = std::min(rank, n) - 1;
  std::nth_element(values.begin(), values.begin() + k, values.begin() + n, std::greater<>());
  return values[k];
}

double DailyProfile::peak(Seconds from, Seconds to, int rank) const {
  double level = 0;
  const Seconds first_hour = floor_div(from, kHour);
  const Seconds last_hour = std::max(first_hour, floor_div(to - 1, kHour));
  for (Seconds h = first_hour; h <= last_hour && h < first_hour + kHours; ++h) {
    level = std::max(level, hour_level(static_cast<int>(((h % kHours) + kHours) % kHours), rank));
  }
  return level;
}

int DailyProfile::days() const {
  int n = 0;
  for (int row = 0; row < kDays; ++row) {
    if (!fresh(row)) continue;
    n += std::any_of(peaks_.begin() + row * kHours, peaks_.begin() + (row + 1) * kHours,
                     [](float v) { return v >= 0; });
  }
  return n;
}

void DailyProfile::save(CheckpointWriter& out) const {
  std::array<std::int64_t, kDays> days;
  std::copy(day_.begin(), day_.end(), days.begin());
  out.integer(newest_day_).integers(days.data(), days.size()).floats(peaks_.data(), peaks_.size());
}

void DailyProfile::load(CheckpointReader& in) {
  const std::int64_t newest = in.integer("profile newest day");
  if (newest < -1 || newest > INT32_MAX) in.fail("profile newest day out of range");
  const std::vector<std::int64_t> days = in.integers("profile days", kDays);
  for (std::int64_t d : days) {
    if (d < -1 || d > newest) in.fail("profile days are out of order");
  }
  const std::vector<float> peaks = in.floats("profile peaks", peaks_.size(), true);
  newest_day_ = static_cast<std::int32_t>(newest);
  std::copy(days.begin(), days.end(), day_.begin());
  std::copy(peaks.begin(), peaks.end(), peaks_.begin());
}

}  // namespace tailor::recommender
