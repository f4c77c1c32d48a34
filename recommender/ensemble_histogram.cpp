#include "recommender/ensemble_histogram.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "recommender/checkpoint_text.h"

namespace tailor::recommender {
namespace {
// The first sample counts 2^12: 12 bits of resolution before the first halving.
constexpr int kFirstExponent = -12;

// Halves a count, rounding halves to even: unbiased, so small counts (the rare values in the
// tail, where the high percentiles are) fade at their true rate instead of a truncated one.
std::uint32_t half(std::uint32_t c) {
  const std::uint32_t h = c >> 1;
  return h + (c & h & 1);
}

// ceil(x) for 0 <= x < 2^63, without a libm call (no SSE4.1 rounding in the baseline ISA).
std::uint64_t ceil_of(double x) {
  const auto t = static_cast<std::uint64_t>(x);
  return t + (static_cast<double>(t) < x);
}

// Σ counts, four independent sums (the ingest path's longest loop).
std::uint64_t sum(const std::uint16_t* c, int n) {
  std::uint32_t s[4] = {0, 0, 0, 0};
  int j = 0;
  for (; j + 4 <= n; j += 4) {
    s[0] += c[j];
    s[1] += c[j + 1];
    s[2] += c[j + 2];
    s[3] += c[j + 3];
  }
  for (; j < n; ++j) s[0] += c[j];
  return std::uint64_t(s[0]) + s[1] + s[2] + s[3];
}
}  // namespace

EnsembleHistogram::EnsembleHistogram(const HistogramOptions& options,
                                     const std::vector<Seconds>& half_lives, int window)
    : options_(&options),
      rows_(static_cast<std::int8_t>(half_lives.size())),
      window_(static_cast<std::int8_t>(window)) {
  if (half_lives.empty() || half_lives.size() > 16 || window < 2 || window > 127 ||
      window > options.num_buckets() || options.num_buckets() > kNone) {
    throw std::invalid_argument(
        "ensemble histogram: 1 to 16 half-lives, a window of 2 to 127 buckets and at most 255 "
        "buckets");
  }
  block_.reset(new std::byte[block_bytes()]());
  for (int k = 0; k < rows_; ++k) row(k).growth = 1;  // 2^(gap_ / half-life), gap_ 0
}

void EnsembleHistogram::halve(int k) {
  Row& r = row(k);
  std::uint16_t* c = counts(k);
  for (int j = 0; j < window_; ++j) c[j] = static_cast<std::uint16_t>(half(c[j]));
  r.below = half(r.below);
  r.above = half(r.above);
  r.carry *= 0.5f;
  r.weight *= 0.5;
  ++r.exponent;
  recount(k);
  bool below = false, above = false;
  for (int i = 0; i < rows_; ++i) {
    below |= row(i).below > 0;
    above |= row(i).above > 0;
  }
  if (!below) below_highest_ = -1;
  if (!above) above_highest_ = -1;
}

void EnsembleHistogram::recount(int k) {
  Row& r = row(k);
  r.total = static_cast<std::uint32_t>(std::uint64_t(r.below) + r.above + sum(counts(k), window_));
  r.mark_cumulative = static_cast<std::uint32_t>(r.below + sum(counts(k), r.mark + 1));
}

// Adds `count` whole counts to a column (-1: the below lump, window_: the above lump), halving
// the row while it would not fit.
void EnsembleHistogram::add_count(int k, int column, double count) {
  auto n = static_cast<std::uint64_t>(count);
  for (;;) {
    Row& r = row(k);
    std::uint64_t have = column < 0 ? r.below : column >= window_ ? r.above : counts(k)[column];
    const std::uint64_t limit = column < 0 || column >= window_ ? kMaxLump : kMaxCount;
    if (have + n <= limit && r.total + n <= kMaxLump) {
      have += n;
      r.total += static_cast<std::uint32_t>(n);
      if (column <= r.mark) r.mark_cumulative += static_cast<std::uint32_t>(n);
      if (column < 0) {
        r.below = static_cast<std::uint32_t>(have);
      } else if (column >= window_) {
        r.above = static_cast<std::uint32_t>(have);
      } else {
        counts(k)[column] = static_cast<std::uint16_t>(have);
      }
      return;
    }
    halve(k);
    n >>= 1;
  }
}

// The first sample sets the rows' exponents and places the window.
void EnsembleHistogram::start(int bucket, Seconds time, const std::vector<Seconds>& half_lives) {
  has_samples_ = true;
  for (int k = 0; k < rows_; ++k) {
    // Saturated: only absurd times or half-lives come near 2^30 half-lives.
    const double e = std::floor(static_cast<double>(time) / static_cast<double>(half_lives[k]));
    row(k).exponent = static_cast<std::int32_t>(std::clamp(e, -1e9, 1e9)) + kFirstExponent;
  }
  start_ = static_cast<std::int16_t>(
      std::clamp(bucket - window_ / 4, 0, options_->num_buckets() - window_));
}

void EnsembleHistogram::add_sample(double value, Seconds time,
                                   const std::vector<Seconds>& half_lives) {
  if (!std::isfinite(value) || value < 0) return;
  const int bucket = options_->find_bucket(value);
  if (!has_samples_) start(bucket, time, half_lives);
  last_time_ = time;
  add_to_rows(column_of(bucket, bucket < start_), [&](const Row& r, int k) {
    return std::exp2(static_cast<double>(time) / static_cast<double>(half_lives[k]) - r.exponent);
  });
}

void EnsembleHistogram::add_sample_at_new_gap(double value, Seconds time,
                                              const std::vector<Seconds>& half_lives) {
  if (!has_samples_) {
    add_sample(value, time, half_lives);
    return;
  }
  gap_ = time - last_time_;
  for (int k = 0; k < rows_; ++k) {
    row(k).growth = std::exp2(static_cast<double>(gap_) / static_cast<double>(half_lives[k]));
  }
  add_carried_sample(value, time, half_lives);
}

void EnsembleHistogram::halve_for(int k, double& exact) {
  while (exact > kMaxCount) {
    halve(k);
    exact *= 0.5;
  }
}

void EnsembleHistogram::percentile_buckets(const double* ps, std::size_t n, Bucket* out) {
  bool from_lump = false;
  for (int k = 0; k < rows_; ++k) {
    Row& r = row(k);
    const std::uint16_t* c = counts(k);
    const std::uint64_t total = r.total;
    if (total == 0) {
      std::fill(out + k * n, out + (k + 1) * n, kNone);
      continue;
    }
    // position -1 is the below lump, window_ the above lump; cumulative includes position.
    // Each answer is the first position whose cumulative reaches the threshold: the first
    // percentile's walk starts from the last answer (back while the one before still reaches
    // it, else forward), the others continue from there.
    int position = r.mark;
    std::uint64_t cumulative = r.mark_cumulative;
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint64_t threshold = ceil_of(ps[i] * double(total));  // integer cumulatives
      if (i == 0) {
        while (position >= 0 && cumulative - c[position] >= threshold) {
          cumulative -= c[position--];
        }
      }
      while (cumulative < threshold && position + 1 < window_) cumulative += c[++position];
      if (i == 0) {
        r.mark = static_cast<std::int8_t>(std::min(position, window_ - 1));
        r.mark_cumulative = static_cast<std::uint32_t>(cumulative);
      }
      if (cumulative < threshold) {
        position = window_;
        cumulative += r.above;
      }
      const bool lump = position < 0 || position >= window_;
      const int bucket = position < 0          ? below_highest_
                         : position >= window_ ? above_highest_
                                               : start_ + position;
      from_lump |= lump;
      out[k * n + i] = static_cast<Bucket>(bucket);
    }
  }
  if (!from_lump) return;
  constexpr std::size_t kInline = 64;
  std::int16_t inline_answers[kInline];
  std::vector<std::int16_t> heap_answers;
  std::int16_t* answers = inline_answers;
  const std::size_t count = n * rows_;
  if (count > kInline) {
    heap_answers.resize(count);
    answers = heap_answers.data();
  }
  // Rows without samples answer -1; they do not pull the window.
  const std::size_t kept = static_cast<std::size_t>(
      std::copy_if(out, out + count, answers, [](Bucket b) { return b != kNone; }) - answers);
  if (kept > 0) move_window(answers, kept);
}

// Whether some window could hold more of the answers than the current one, without sorting
// them (most calls: memory's 100th percentile is answered from the above lump on many samples).
// Answers outside the window are a lump's highest bucket; the two lumps' are more than a window
// apart, so a window holds at most one lump's answers plus the inside answers near it.
bool EnsembleHistogram::may_hold_more(const std::int16_t* buckets, std::size_t n) const {
  std::size_t inside = 0, above = 0, below = 0, near_above = 0, near_below = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const int b = buckets[i];
    if (b >= start_ + window_) {
      ++above;
    } else if (b < start_) {
      ++below;
    } else {
      ++inside;
      near_above += b > above_highest_ - window_;
      near_below += b < below_highest_ + window_;
    }
  }
  return above + near_above > inside || below + near_below > inside;
}

// Places the window over the most percentile buckets it can hold, with a quarter of the spare
// columns below them and the rest above (usage mostly rises past high percentiles, not falls
// below them). Percentiles left out are answered from a lump: the ones above with the lump's
// highest bucket (exact for the 100th percentile), the ones below with the window's start.
void EnsembleHistogram::move_window(std::int16_t* buckets, std::size_t n) {
  if (!may_hold_more(buckets, n)) return;
  std::sort(buckets, buckets + n);
  std::size_t best = 0, best_count = 0;
  for (std::size_t i = 0, j = 0; i < n; ++i) {
    while (j < n && buckets[j] < buckets[i] + window_) ++j;
    if (j - i > best_count) {
      best = i;
      best_count = j - i;
    }
  }
  // Moving merges weight into lumps and puts lumps at their highest bucket: only for a window
  // that holds more percentiles than the current one (bimodal load would flip it back and forth).
  const auto inside = std::count_if(
      buckets, buckets + n, [this](std::int16_t b) { return b >= start_ && b < start_ + window_; });
  if (static_cast<std::size_t>(inside) >= best_count) return;
  const int lowest = buckets[best], highest = buckets[best + best_count - 1];
  const int spare = window_ - (highest - lowest + 1);
  const int start = std::clamp(lowest - spare / 4, 0, options_->num_buckets() - window_);
  if (start > start_) merge_below(start);
  if (start < start_) merge_above(start);
}

void EnsembleHistogram::merge_below(int first_kept) {
  const int shift = std::min(first_kept - start_, int(window_));
  for (int k = 0; k < rows_; ++k) {
    std::uint16_t* c = counts(k);
    for (int j = 0; j < shift; ++j) {
      if (c[j] == 0) continue;
      below_highest_ = static_cast<std::int16_t>(std::max(int(below_highest_), start_ + j));
      add_count(k, -1, c[j]);
      c[j] = 0;
    }
  }
  for (int k = 0; k < rows_; ++k) {
    std::uint16_t* c = counts(k);
    std::memmove(c, c + shift, sizeof(std::uint16_t) * (window_ - shift));
    std::fill(c + window_ - shift, c + window_, std::uint16_t(0));
  }
  start_ = static_cast<std::int16_t>(first_kept);
  if (above_highest_ >= 0 && above_highest_ < start_ + window_) {
    for (int k = 0; k < rows_; ++k) {
      const std::uint32_t lump = row(k).above;
      row(k).above = 0;
      add_count(k, above_highest_ - start_, lump);
    }
    above_highest_ = -1;
  }
  for (int k = 0; k < rows_; ++k) recount(k);
}

void EnsembleHistogram::merge_above(int new_start) {
  const int shift = std::min(start_ - new_start, int(window_));
  for (int k = 0; k < rows_; ++k) {
    std::uint16_t* c = counts(k);
    for (int j = window_ - shift; j < window_; ++j) {
      if (c[j] == 0) continue;
      above_highest_ = static_cast<std::int16_t>(std::max(int(above_highest_), start_ + j));
      add_count(k, window_, c[j]);
      c[j] = 0;
    }
  }
  for (int k = 0; k < rows_; ++k) {
    std::uint16_t* c = counts(k);
    std::memmove(c + shift, c, sizeof(std::uint16_t) * (window_ - shift));
    std::fill(c, c + shift, std::uint16_t(0));
  }
  start_ = static_cast<std::int16_t>(new_start);
  if (below_highest_ >= start_) {
    for (int k = 0; k < rows_; ++k) {
      const std::uint32_t lump = row(k).below;
      row(k).below = 0;
      add_count(k, below_highest_ - start_, lump);
    }
    below_highest_ = -1;
  }
  for (int k = 0; k < rows_; ++k) recount(k);
}

std::size_t EnsembleHistogram::state_bytes() const { return sizeof(*this) + block_bytes(); }

void EnsembleHistogram::save(CheckpointWriter& out) const {
  out.integer(has_samples_).integer(start_);
  out.integer(below_highest_).integer(above_highest_).integer(last_time_);
  std::vector<std::int64_t> rows;
  std::vector<double> weights;
  std::vector<float> carries;
  std::vector<std::int64_t> all_counts;
  for (int k = 0; k < rows_; ++k) {
    rows.insert(rows.end(), {row(k).exponent, row(k).below, row(k).above});
    weights.push_back(row(k).weight);
    carries.push_back(row(k).carry);
    all_counts.insert(all_counts.end(), counts(k), counts(k) + window_);
  }
  out.integers(rows.data(), rows.size())
      .reals(weights.data(), weights.size())
      .floats(carries.data(), carries.size())
      .integers(all_counts.data(), all_counts.size());
}

void EnsembleHistogram::load(CheckpointReader& in, const std::vector<Seconds>& half_lives) {
  const bool has_samples = in.integer("histogram sample flag") != 0;
  const std::int64_t start = in.integer("histogram window start");
  const std::int64_t below = in.integer("histogram highest bucket below");
  const std::int64_t above = in.integer("histogram highest bucket above");
  const Seconds last_time = in.integer("histogram last sample time");
  const int buckets = options_->num_buckets();
  if (start < 0 || start > buckets - window_ || below < -1 || below >= start || above < -1 ||
      above >= buckets || (above >= 0 && above < start + window_)) {
    in.fail("histogram window [" + std::to_string(start) + ", " + std::to_string(start + window_) +
            ") or its lumps (" + std::to_string(below) + ", " + std::to_string(above) +
            ") outside [0, " + std::to_string(buckets) + ")");
  }
  const std::vector<std::int64_t> rows = in.integers("histogram rows", 3 * rows_);
  const std::vector<double> weights = in.reals("histogram sample weights", rows_);
  const std::vector<float> carries = in.floats("histogram carries", rows_);
  const std::vector<std::int64_t> all_counts =
      in.integers("histogram counts", static_cast<std::size_t>(rows_) * window_);
  for (int k = 0; k < rows_; ++k) {
    const std::int64_t exponent = rows[3 * k], lumps[2] = {rows[3 * k + 1], rows[3 * k + 2]};
    if (exponent < INT32_MIN || exponent > INT32_MAX || !(carries[k] < 1)) {
      in.fail("histogram row exponent or carry out of range");
    }
    // The weight is carried from sample to sample (add_sample with growth factors), so it is
    // within a rounding of 2^(last_time / half-life - exponent); anything else is corrupt.
    const double exact =
        std::exp2(static_cast<double>(last_time) / static_cast<double>(half_lives[k]) -
                  static_cast<double>(exponent));
    if (has_samples && !(std::fabs(weights[k] / exact - 1) < 1e-6)) {
      in.fail("histogram sample weight does not match its time and exponent");
    }
    for (std::int64_t lump : lumps) {
      if (lump < 0 || lump > kMaxLump) in.fail("histogram lump out of range");
    }
    if ((lumps[0] > 0 && below < 0) || (lumps[1] > 0 && above < 0)) {
      in.fail("histogram lump without its highest bucket");
    }
  }
  for (std::int64_t c : all_counts) {
    if (c < 0 || c > kMaxCount) in.fail("histogram count out of range");
  }
  has_samples_ = has_samples;
  last_time_ = last_time;
  gap_ = 0;
  start_ = static_cast<std::int16_t>(start);
  below_highest_ = static_cast<std::int16_t>(below);
  above_highest_ = static_cast<std::int16_t>(above);
  for (int k = 0; k < rows_; ++k) {
    row(k).exponent = static_cast<std::int32_t>(rows[3 * k]);
    row(k).below = static_cast<std::uint32_t>(rows[3 * k + 1]);
    row(k).above = static_cast<std::uint32_t>(rows[3 * k + 2]);
    row(k).weight = weights[k];
    row(k).growth = 1;  // gap_ 0
    row(k).carry = carries[k];
    std::copy(all_counts.begin() + k * window_, all_counts.begin() + (k + 1) * window_, counts(k));
    recount(k);
  }
}

}  // namespace tailor::recommender
