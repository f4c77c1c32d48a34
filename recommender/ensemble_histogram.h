#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "recommender/histogram_options.h"
#include "recommender/resources.h"

namespace tailor::recommender {

class CheckpointReader;
class CheckpointWriter;

// One exponential-bucket histogram per half-life, sized to a container's state budget: each row
// keeps 16-bit counts for a window of `window` adjacent buckets shared by all rows, plus two
// lumps, the weight below the window and the weight above it.
//
// Why this shape: the ensemble asks only for high percentiles (CPU 80th-99th, memory 99th-100th),
// which sit within a few buckets of each other, so a window of a few dozen 5 % buckets covers
// them; the weight outside only has to be counted. A percentile that falls in a lump is
// answered conservatively (never lower than the truth): the highest bucket the lump may hold.
// When that happens the window moves to where the percentiles are, and a lump the window moves
// over is put at that highest bucket (still conservative), so detail is lost only for weight
// that was already outside.
//
// Counts are fixed point: a sample at time t adds 2^(t / half_life - exponent) counts (the
// fraction carried to the next sample, so no weight is lost to rounding); when a count, or one
// sample's weight, would pass 65535 the row is halved and its exponent goes up by one (about once
// per half-life; halves round to even). A value thus fades out of the counts 6-16 half-lives
// after it was seen (the more samples per half-life, the sooner), where float weights kept it
// for ~150: this is what moves the 100th percentile, and the default strategy's peak floor
// (PeakMemory) keeps the week's peaks anyway. Sums are exact integers, so percentiles do not
// depend on the order of additions.
class EnsembleHistogram {
 public:
  EnsembleHistogram(const HistogramOptions& options, const std::vector<Seconds>& half_lives,
                    int window);

  // Non-finite or negative values are ignored. half_lives: those the histogram was built with
  // (the caller's config holds them; not copied into every container's state). The sample's
  // weight is computed exactly, one exp2 per row.
  void add_sample(double value, Seconds time, const std::vector<Seconds>& half_lives);
  // The same, with the weight carried from the last sample: one multiplication per row by
  // 2^((time - last_time()) / half-life) instead of an exp2. The factors are kept for the last
  // gap between samples (samples come at one period: recomputed only when the gap changes). The
  // weight drifts from the exact one by at most one rounding per sample (relative 2^-53 each);
  // add_sample above puts it back exactly, and the ensemble calls it at the first sample after
  // each catch-up.
  [[gnu::always_inline]] void add_carried_sample(double value, Seconds time,
                                                 const std::vector<Seconds>& half_lives) {
    if (!(value >= 0 && value <= kMaxValue)) return;  // NaN, < 0, inf
    if (!has_samples_ || time - last_time_ != gap_) [[unlikely]] {
      add_sample_at_new_gap(value, time, half_lives);
      return;
    }
    last_time_ = time;
    const auto weight_of = [](const Row& r, int) { return r.weight * r.growth; };
    // Below the window or not is decided on the value, against the smallest value of the
    // window's first bucket, and a sample below looks its bucket up only when it is above the
    // below lump's highest: the same answers as from the bucket. With fine buckets (1 m for CPU)
    // the window's first bucket sits among the samples and this branch is often mispredicted:
    // it no longer waits for the bucket's table lookup, so a misprediction throws away less
    // work, and most samples (those below) skip the lookup.
    if (value < options_->bucket_threshold(start_)) {
      if (!(value < options_->bucket_threshold(below_highest_ + 1))) [[unlikely]]
        below_highest_ = static_cast<std::int16_t>(options_->find_bucket(value));
      add_to_rows(-1, weight_of);
    } else {
      add_to_rows(column_of(options_->find_bucket(value), false), weight_of);
    }
  }
  Seconds last_time() const { return last_time_; }
  // A bucket index in one byte (VPA's geometries have 176 buckets); kNone: no bucket.
  using Bucket = std::uint8_t;
  static constexpr Bucket kNone = 255;
  // The bucket of each percentile for each half-life: out[k * n + i] for percentile ps[i]
  // (ascending) of row k; kNone where a row is empty. Moves the window for the next samples
  // when a percentile was answered from a lump.
  void percentile_buckets(const double* ps, std::size_t n, Bucket* out);
  // The value a percentile bucket reports: the bucket's end (0 for kNone).
  double bucket_end(Bucket bucket) const {
    if (bucket == kNone) return 0;
    return bucket + 1 < options_->num_buckets() ? options_->bucket_start(bucket + 1)
                                                : options_->bucket_start(bucket);
  }
  int rows() const { return rows_; }
  int num_buckets() const { return options_->num_buckets(); }
  int window() const { return window_; }
  bool empty() const { return !has_samples_; }
  std::size_t state_bytes() const;
  // Checkpoint: the exact counts and carried weights. load() reads into a histogram with the
  // same options, half-lives and window; it throws CheckpointError for counts that do not fit
  // them or weights that do not match their time.
  void save(CheckpointWriter& out) const;
  void load(CheckpointReader& in, const std::vector<Seconds>& half_lives);

 private:
  struct Row {
    double weight;  // counts a sample at last_time_ adds: 2^(last_time_ / half-life - exponent)
    double growth;  // 2^(gap_ / half-life)
    float carry;    // fraction of a count not yet added
    // The fields a sample adds to (below, total, mark_cumulative) are not adjacent: adjacent,
    // GCC packs their additions into vector instructions, five for the two additions.
    std::uint32_t below;  // weight of buckets below the window
    std::int32_t exponent;
    std::uint32_t total;  // below + above + the window's counts: the walk does not sum them
    std::uint32_t above;  // weight of buckets above it
    // Where the first percentile was last answered (-1: the below lump) and the weight up to
    // and including it: the next walk starts there, and load moves a percentile little.
    std::uint32_t mark_cumulative;
    std::int8_t mark;
  };
  Row& row(int k) { return reinterpret_cast<Row*>(block_.get())[k]; }
  const Row& row(int k) const { return reinterpret_cast<const Row*>(block_.get())[k]; }
  std::uint16_t* counts(int k) {
    return reinterpret_cast<std::uint16_t*>(block_.get() + rows_ * sizeof(Row)) + k * window_;
  }
  const std::uint16_t* counts(int k) const {
    return reinterpret_cast<const std::uint16_t*>(block_.get() + rows_ * sizeof(Row)) + k * window_;
  }
  std::size_t block_bytes() const {
    return rows_ * (sizeof(Row) + window_ * sizeof(std::uint16_t));
  }
  static constexpr std::uint32_t kMaxCount = 65535;      // a 16-bit count
  static constexpr std::uint32_t kMaxLump = 4294967295;  // a 32-bit lump or total
  static constexpr double kMaxValue = 1.7976931348623157e308;
  void halve(int k);
  void halve_for(int k, double& exact);  // halves row k until `exact` fits a count
  void start(int bucket, Seconds time, const std::vector<Seconds>& half_lives);
  void add_sample_at_new_gap(double value, Seconds time, const std::vector<Seconds>& half_lives);
  void recount(int k);  // total and mark from the counts (after a halving or a window move)
  void add_count(int k, int column, double count);
  // The window column of a bucket (-1: the below lump, window_: the above lump), noting the
  // highest bucket a lump takes. below: bucket < start_.
  int column_of(int bucket, bool below) {
    if (below) {
      below_highest_ = static_cast<std::int16_t>(below_highest_ > bucket ? below_highest_ : bucket);
      return -1;
    }
    const int column = bucket - start_;
    if (column >= window_) [[unlikely]] {
      above_highest_ = static_cast<std::int16_t>(above_highest_ > bucket ? above_highest_ : bucket);
      return window_;
    }
    return column;
  }
  // Takes a sample of `weight` counts (2^(time / half-life - exponent)) into row k's weight and
  // carry; returns the whole counts to add.
  std::uint32_t take_weight(Row& r, int k, double weight) {
    r.weight = weight;  // halve() keeps it in step with the exponent
    double exact = weight + r.carry;
    // One sample never weighs more than a full count: the row halves at least once per
    // half-life, so old weight fades at the same pace wherever the new weight lands.
    if (exact > kMaxCount) [[unlikely]]
      halve_for(k, exact);
    // floor without a libm call: 0 <= exact <= 65535 here.
    const auto whole = static_cast<std::uint32_t>(exact);
    r.carry = static_cast<float>(exact - static_cast<double>(whole));
    return whole;
  }
  // Adds a sample to every row's column, each row's weight given by `weight_of(row, k)`. Most
  // samples go to the below lump (the percentiles asked are high, the window sits around them)
  // or to a window column, with room and no halving; the first row that needs more (a halving,
  // a full count, the above lump) and the rows after it are left to add_to_rows_from, out of
  // line, so that the loops call nothing (a call would cost every sample the spills of the
  // caller's floating-point registers). The branch on the column is taken once per sample, not
  // per row; the shape is read once (the stores to counts could alias it).
  template <typename WeightOf>
  [[gnu::always_inline]] void add_to_rows(int column, WeightOf weight_of) {
    const int rows = rows_, window = window_;
    std::byte* const block = block_.get();
    Row* const first = reinterpret_cast<Row*>(block);
    int k = 0;
    if (column < 0) {
      for (; k < rows; ++k) {
        Row& r = first[k];
        const double weight = weight_of(r, k), exact = weight + r.carry;
        if (!(exact <= kMaxCount)) [[unlikely]]
          break;
        const auto whole = static_cast<std::uint32_t>(exact);        // floor: 0 <= exact <= 65535
        if (std::uint64_t(r.total) + whole > kMaxLump) [[unlikely]]  // below <= total
          break;
        take_whole(r, weight, exact, whole);
        r.below += whole;
        r.total += whole;
        r.mark_cumulative += whole;  // the below lump is at or before the walk's mark
      }
    } else if (column < window) {
      auto* const column_counts =
          reinterpret_cast<std::uint16_t*>(block + rows * sizeof(Row)) + column;
      for (; k < rows; ++k) {
        Row& r = first[k];
        const double weight = weight_of(r, k), exact = weight + r.carry;
        if (!(exact <= kMaxCount)) [[unlikely]]
          break;
        const auto whole = static_cast<std::uint32_t>(exact);
        std::uint16_t& count = column_counts[k * window];
        if (count + whole > kMaxCount || std::uint64_t(r.total) + whole > kMaxLump) [[unlikely]]
          break;
        take_whole(r, weight, exact, whole);
        count = static_cast<std::uint16_t>(count + whole);
        r.total += whole;
        r.mark_cumulative += column <= r.mark ? whole : 0;
      }
    }
    if (k < rows) [[unlikely]]
      add_to_rows_from(k, column, weight_of);
  }
  // The sample's weight and carry in row r, `whole` counts of `exact` being added.
  static void take_whole(Row& r, double weight, double exact, std::uint32_t whole) {
    r.weight = weight;
    r.carry = static_cast<float>(exact - static_cast<double>(whole));
  }
  // add_to_rows from row k on, each row through take_weight and add_count.
  template <typename WeightOf>
  [[gnu::noinline]] void add_to_rows_from(int k, int column, WeightOf weight_of) {
    for (; k < rows_; ++k) add_count(k, column, take_weight(row(k), k, weight_of(row(k), k)));
  }

  void move_window(std::int16_t* buckets, std::size_t n);  // sorts buckets
  bool may_hold_more(const std::int16_t* buckets, std::size_t n) const;
  void merge_below(int first_kept);
  void merge_above(int last_kept);

  const HistogramOptions* options_;
  std::unique_ptr<std::byte[]> block_;  // rows_ Rows, then rows_ x window_ counts
  Seconds last_time_ = 0;               // of the last sample
  Seconds gap_ = 0;                     // the gap the rows' growth factors are for
  std::int16_t start_ = 0;              // first bucket of the window
  std::int16_t below_highest_ = -1;     // highest bucket whose weight is in a below lump (-1: none)
  std::int16_t above_highest_ = -1;     // highest bucket whose weight is in an above lump
  std::int8_t rows_ = 0;
  std::int8_t window_ = 0;
  bool has_samples_ = false;
};

}  // namespace tailor::recommender
