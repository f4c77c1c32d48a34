#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "recommender/daily_profile.h"
#include "recommender/ensemble_histogram.h"

namespace tailor::recommender {

class CheckpointReader;
class CheckpointWriter;

// Autopilot-style ensemble (Rzadca et al., EuroSys 2020, section 4.2) for one resource: every
// model m = (half-life, percentile, margin) proposes a limit L_m = (1 + margin) * percentile of
// its decayed usage histogram. Each model is scored on what its own limit would have done:
// a pinball (quantile) loss with target quantile tau, which charges tau per unit of overrun and
// (1 - tau) per unit of idle limit, plus a penalty per relative change of its limit. Costs decay
// with cost_half_life, so the winner is the model with the lowest recent cost.
struct EnsembleConfig {
  std::vector<Seconds> half_lives;
  std::vector<double> percentiles;
  std::vector<double> margins;
  double tau = 0.95;  // quantile of usage the limit should sit at
  // Cost of one change of a model's limit, per unit of relative change (|dL| / usage level),
  // in units of 5 minutes of overrun at the usage level.
  double change_penalty = 0.5;
  Seconds cost_half_life = kDay;
  // Daily-profile models (empty ranks = none): limit = (1 + margin) * the predicted peak of the
  // next profile_lookahead (DailyProfile::peak with each rank). They compete on the same cost,
  // and may win only once the profile holds profile_min_days days.
  // > 0: score models by the figures replay charges instead of the pinball loss (see
  // ModelEnsemble::score_ratios); the price of one unit of shortfall in units of slack.
  double shortfall_price = 0;
  double change_price = 0;  // per relative limit change per day, in units of slack
  std::vector<int> profile_ranks;
  std::vector<double> profile_margins;
  Seconds profile_lookahead = kHour;
  int profile_min_days = 3;
};

class ModelEnsemble {
 public:
  // min_limit: limits are applied at least at this (the minimum resources); the figure-sum
  // scoring (shortfall_price > 0) charges them so.
  // window: buckets of detail per histogram row (EnsembleHistogram). The ensemble keeps a
  // pointer to `config`, which must outlive it.
  ModelEnsemble(const HistogramOptions& options, const EnsembleConfig& config, double min_limit = 0,
                int window = kDefaultWindow);
  ModelEnsemble(ModelEnsemble&&) noexcept;
  ModelEnsemble& operator=(ModelEnsemble&&) noexcept;
  ~ModelEnsemble();

  // Adds the sample to the histograms and scores every model's limit against `usage` over a
  // window of `length`. No allocation.
  //
  // The default's per-sample path (pinball scoring, no daily profile or figure sums) is lazy:
  // a model's limit is (1 + margin) x a percentile, and the percentiles are recomputed, and the
  // costs brought up to date, only at a catch-up: at best_limit() (each recommendation), at the
  // first sample of a new hour (the period close), and at the first sample. Between catch-ups
  // the limits stand still, so each model's pinball loss over the samples since is
  //   (1 - tau) x (limit x Σ w - Σ w u) + Σ w x max(u - limit, 0)
  // (w: each sample's weight, decayed to now): per sample the ensemble keeps only the two sums
  // and their decay, whatever the number of models, and scores a sample above the lowest limit
  // (an overrun for some model; rare, as tau is high) at once, model by model. Scoring against
  // the limits of the last catch-up is what the models would have been charged had they been
  // applied then; with a catch-up after every sample (replay recommends after each window) it is
  // the per-sample scoring. The pending sums are divided by the usage level at the catch-up, not
  // each sample's: the level has a day's half-life, so within an hour it moves by < 3 %.
  [[gnu::always_inline]] void observe(double usage, Seconds time, Seconds length = kCostUnit) {
    if (!takes(usage)) return;
    // Within the open period (see below) with the lazy scoring: the sums, and the sample's
    // weight carried from the last one. Tested first and once: this is nearly every sample.
    if (stale_ && time < close_at_ && !extras_ && !histogram_.empty()) [[likely]] {
      score_lazily(usage, time, length);
      histogram_.add_carried_sample(usage, time, config_->half_lives);
      return;
    }
    observe_rarely(usage, time, length);
  }
  // Whether observe() takes a usage: finite and >= 0 (not NaN, < 0 or inf).
  static bool takes(double usage) { return usage >= 0 && usage <= 1.7976931348623157e308; }
  // Brings the costs and limits up to date (see observe); nothing when no sample came since.
  void catch_up();

  // Overrun/underrun costs count per 5 minutes of usage, so that the balance against the
  // change penalty does not depend on how often samples come.
  static constexpr Seconds kCostUnit = 300;
  // 32 buckets of 5 % span a factor of 4.7, several times the spread of the percentiles asked.
  static constexpr int kDefaultWindow = 32;
  // The limit proposed by the model with the lowest recent cost (0 before any sample), after a
  // catch_up().
  double best_limit();
  // The best model, each model's limit and its cost as of the last catch-up.
  std::size_t best_model() const;
  // Whether the best model is a daily-profile one (its limit follows the time of day).
  bool best_is_profile() const { return profile_ready() && best_model() >= histogram_models_; }
  std::size_t models() const { return models_; }
  // Model m's limit and recent cost (as of the last catch-up). Models are views: a histogram
  // model's limit is (1 + margin) x one percentile of one half-life's histogram.
  double limit(std::size_t m) const;
  double cost(std::size_t m) const { return costs()[m]; }
  std::size_t state_bytes() const;
  // Checkpoint: histograms, percentiles, costs, the running level and the sums pending since the
  // last catch-up, exactly. load() reads
  // into a fresh ensemble with the same options, config and window; it throws CheckpointError
  // for a checkpoint of another shape (e.g. other half-lives or models) or with invalid values.
  void save(CheckpointWriter& out) const;
  void load(CheckpointReader& in);

 private:
  struct Extras;
  // The lazy scoring's sums since the last catch-up (see observe), at the front of block_ when
  // the ensemble scores lazily: Σ w decayed, Σ w u decayed, their decay since the catch-up
  // (costs are multiplied by it), and the lowest limit of any model (a sample above it is an
  // overrun for some model, scored at once).
  struct Pending {
    double decay, weight, usage, lowest_limit;
  };
  bool lazy() const { return models_ > 1 && !extras_; }
  Pending& pending() { return *reinterpret_cast<Pending*>(block_.get()); }
  const Pending& pending() const { return *reinterpret_cast<const Pending*>(block_.get()); }
  std::size_t pending_bytes() const { return lazy() ? sizeof(Pending) : 0; }
  void observe_rarely(double usage, Seconds time, Seconds length);
  void observe_eagerly(double usage, Seconds time, Seconds length);
  // The default's path (see observe): the costs get two sums (the histogram rows the sample
  // after this, from the caller).
  [[gnu::always_inline]] void score_lazily(double usage, Seconds time, Seconds length) {
    if (models_ > 1) {  // one model: nothing to choose between, no costs and no level to keep
      const double decay = decay_over(time - histogram_.last_time());
      level_ = decay * level_ + (1 - decay) * usage;
      Pending& p = pending();
      if (usage > p.lowest_limit) [[unlikely]] {
        score_overrun(usage, decay, length);
      } else {
        const double weight = weight_of(length);
        p.decay *= decay;
        p.weight = decay * p.weight + weight;
        p.usage = decay * p.usage + weight * usage;
      }
    }
  }
  // The first sample after a catch-up takes its weight exactly (the others carry it), and opens
  // the period.
  void open_period(double usage, Seconds time);
  void score_overrun(double usage, double decay, Seconds length);
  void fold_pending();
  // 2^(-gap / cost_half_life), the costs' and the level's decay over a gap between samples,
  // kept for the last gap (samples come at one period: an exp2 only when the gap changes).
  double decay_over(Seconds gap) {
    if (gap != decay_gap_) [[unlikely]]
      set_decay_gap(gap);
    return decay_;
  }
  void set_decay_gap(Seconds gap);
  // A window's weight in cost units (a multiplication: no division per sample).
  static double weight_of(Seconds length) {
    constexpr double kPerSecond = 1.0 / kCostUnit;
    return static_cast<double>(length > 1 ? length : 1) * kPerSecond;
  }
  double lowest_limit() const;  // of the histogram models
  void recompute_and_charge(Seconds next_window, const double* profile_before, double scale);
  void add(double usage, Seconds time);
  void score_pinball(double usage, double weight, double decay, double scale);
  void score_ratios(double usage, double weight, double decay, const std::vector<double>& previous);
  using Bucket = EnsembleHistogram::Bucket;
  void charge_changes(const Bucket* before, const double* profile_before, double scale);
  void recompute_limits(Seconds next_window);
  bool profile_ready() const;
  std::size_t percentile_count() const { return config_->percentiles.size(); }
  std::size_t margin_count() const { return config_->margins.size(); }
  // block_ holds the pending sums (when lazy), the models' costs (float), then the bucket of each
  // (half-life, percentile).
  using Cost = float;
  Cost* costs() { return reinterpret_cast<Cost*>(block_.get() + pending_bytes()); }
  const Cost* costs() const {
    return reinterpret_cast<const Cost*>(block_.get() + pending_bytes());
  }
  Bucket* buckets() { return reinterpret_cast<Bucket*>(costs() + models_); }
  const Bucket* buckets() const { return reinterpret_cast<const Bucket*>(costs() + models_); }
  std::size_t block_bytes() const {
    return pending_bytes() + models_ * sizeof(Cost) + percentile_pairs_ * sizeof(Bucket);
  }
  double* profile_limits();
  const double* profile_limits() const;

  const EnsembleConfig* config_;
  // no_unique_address: the small fields below sit in the histogram's tail padding (8 bytes of
  // every container's state). Its emptiness is the ensemble's: both take every valid sample.
  [[no_unique_address]] EnsembleHistogram histogram_;
  std::uint16_t models_ = 0;
  std::uint16_t histogram_models_ = 0;
  std::uint16_t percentile_pairs_ = 0;  // half-lives x percentiles
  bool stale_ = false;                  // samples came since the last catch-up
  std::unique_ptr<std::byte[]> block_;
  std::unique_ptr<Extras> extras_;  // daily profile and figure sums, only when configured
  double level_ = 0;                // running usage level that makes costs unit-free
  Seconds close_at_ = 0;            // the period close: the hour after the first stale sample's
  Seconds decay_gap_ = 0;           // the gap decay_ is for
  double decay_ = 1;                // 2^(-decay_gap_ / cost_half_life)
};

}  // namespace tailor::recommender
